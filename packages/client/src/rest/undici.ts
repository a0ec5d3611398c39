// undici's runtime parts the client uses, in one module so a browser bundle can put
// undici.browser.ts (fetch, the browser's WebSocket) in their place (package.json "browser").
export { request, WebSocket } from 'undici';
