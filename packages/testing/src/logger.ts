/** A logger that drops every line: for servers and clients started by tests and benchmarks. */
export const silentLogger = {
  debug(): void {},
  info(): void {},
  warn(): void {},
  error(): void {},
};
