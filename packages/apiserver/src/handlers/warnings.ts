import type Koa from 'koa';

// Warning headers as kube-apiserver sends them (k8s.io/apimachinery/pkg/util/net
// NewWarningHeader, k8s.io/apiserver/pkg/endpoints/filters/warning.go): `299 - "<text>"`, one
// header per distinct text; kubectl prints each as `Warning: <text>`.

function quoted(text: string): string {
  return `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** Adds one `Warning: 299 - "..."` header per new text; texts with control characters are dropped. */
export function addWarnings(ctx: Koa.Context, texts: readonly string[]): void {
  const existing = ctx.res.getHeader('Warning');
  const sent = new Set<string>(
    Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)],
  );
  for (const text of texts) {
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(text)) continue;
    // Header values travel as bytes: send the UTF-8 of the text, as Go does.
    const value = Buffer.from(`299 - ${quoted(text)}`, 'utf8').toString('latin1');
    if (sent.has(value)) continue;
    sent.add(value);
    ctx.append('Warning', value);
  }
}
