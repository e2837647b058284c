// api.js - the server's JSON API (/api/...): every figure the page shows comes from it,
// computed by libanalysis.  api(path) resolves to the reply or throws its error.
import { state } from './state.js';

// path with the filter when there is one
export function withFilter(path) {
  if (!state.filter) return path;
  return path + (path.includes('?') ? '&' : '?') + 'filter=' + encodeURIComponent(state.filter);
}

// path with the filter and the time range's t0 and t1 when one is selected
export function withRange(path) {
  path = withFilter(path);
  if (!state.range) return path;
  return path + (path.includes('?') ? '&' : '?') + `t0=${state.range.t0}&t1=${state.range.t1}`;
}

export async function api(path) {
  const r = await fetch('/api/' + path, { credentials: 'same-origin' });
  const j = await r.json();
  if (!r.ok) throw new Error(j.error || r.statusText);
  return j;
}
