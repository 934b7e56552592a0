/**
 * The minimal hosted review page: one select per target field (named by its label),
 * saved on change; Approve and Cancel. Self-contained: no build step, nothing fetched
 * from elsewhere. The full review experience is issue 3.
 */
const STYLE = `
  body{font-family:system-ui,sans-serif;margin:0;padding:1rem;background:#fff;color:#1a1a1a;max-width:48rem}
  body.dark{background:#121212;color:#eee} h1{font-size:1.4rem}
  .field{display:grid;grid-template-columns:1fr 1fr;gap:.5rem;align-items:center;padding:.4rem 0;border-bottom:1px solid #ccc}
  .req{color:#b00020;font-weight:bold} select,button{font-size:1rem;padding:.4rem}
  .actions{margin-top:1rem;display:flex;gap:.5rem} #status{margin-top:1rem;font-weight:bold}`;

const SCRIPT = `
const q = new URLSearchParams(location.search); const sig = encodeURIComponent(q.get('signature') || '');
const base = location.pathname.replace(/\\/$/, '');
const api = (p, opt) => fetch(base + '/' + p + '?signature=' + sig, Object.assign({ headers: { 'content-type': 'application/json' } }, opt))
  .then(async (r) => { const b = await r.json(); if (!r.ok) throw new Error(b.error ? b.error.message : r.statusText); return b; });
let view = null;
const $ = (id) => document.getElementById(id);
function mapping() { const m = {}; document.querySelectorAll('select[data-field]').forEach((s) => { m[s.dataset.field] = s.value === '' ? null : s.value; }); return m; }
function render(v) {
  view = v; document.body.className = v.appearance === 'dark' ? 'dark' : '';
  const msg = { preparing: 'The file is being prepared for review…', approved: 'This review was approved.', canceled: 'This review was canceled.',
    expired: 'This review has expired.', failed: 'This run failed: ' + (v.error && v.error.message) }[v.phase] || '';
  $('status').textContent = msg;
  const box = $('fields'); box.innerHTML = '';
  const readOnly = v.phase !== 'active';
  if (v.phase === 'active' || v.phase === 'approved' || v.phase === 'canceled') v.fields.forEach((f) => {
    const row = document.createElement('div'); row.className = 'field';
    const id = 'f-' + f.name; const label = document.createElement('label'); label.htmlFor = id; label.textContent = f.label;
    if (f.is_required) { const s = document.createElement('span'); s.className = 'req'; s.textContent = ' *'; s.setAttribute('aria-hidden', 'true'); label.appendChild(s); }
    const sel = document.createElement('select'); sel.id = id; sel.dataset.field = f.name; sel.disabled = readOnly;
    const none = document.createElement('option'); none.value = ''; none.textContent = 'not mapped'; sel.appendChild(none);
    v.source_headers.forEach((h) => { const o = document.createElement('option'); o.value = h; o.textContent = h; sel.appendChild(o); });
    sel.value = (v.mapping_rule && v.mapping_rule[f.name]) || '';
    sel.addEventListener('change', () => api('mapping', { method: 'PUT', body: JSON.stringify({ mapping_rule: mapping() }) })
      .then(render).catch((e) => { $('status').textContent = e.message; }));
    row.append(label, sel); box.appendChild(row);
  });
  $('approve').disabled = readOnly; $('cancel').disabled = readOnly;
  if (v.phase === 'preparing') setTimeout(load, 1500);
}
function load() { api('state').then(render).catch((e) => { $('status').textContent = e.message; }); }
$('approve').addEventListener('click', () => { if (!confirm('Approve this mapping?')) return;
  api('approve', { method: 'POST', body: JSON.stringify({ mapping_rule: mapping() }) }).then((v) => { render(v);
    if (v.success_callback) location.href = v.success_callback + (v.success_callback.includes('?') ? '&' : '?') + 'transformation_id=' + v.run_id; })
  .catch((e) => { $('status').textContent = e.message; }); });
$('cancel').addEventListener('click', () => { if (!confirm('Cancel this review?')) return;
  api('cancel', { method: 'POST', body: '{}' }).then((v) => { render(v);
    if (v.cancel_callback) location.href = v.cancel_callback + (v.cancel_callback.includes('?') ? '&' : '?') + 'transformation_id=' + v.run_id; })
  .catch((e) => { $('status').textContent = e.message; }); });
load();`;

export const reviewPage = (_runId: string, _signature: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Review mapping</title><style>${STYLE}</style></head>
<body><main><h1>Review the column mapping</h1>
<div id="fields"></div>
<div class="actions"><button id="approve" type="button">Approve</button><button id="cancel" type="button">Cancel</button></div>
<p id="status" role="status" aria-live="polite"></p></main>
<script>${SCRIPT}</script></body></html>`;

export const invalidLinkPage = (): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Link invalid</title></head>
<body><main><h1>This review link is invalid</h1><p>Ask the sender for a new link.</p></main></body></html>`;
