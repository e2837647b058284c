// speedscope_import.mjs FILE - read a profile with speedscope's own importer
// (the app of the `speedscope` npm package, run in jsdom: the same code that
// loads a file dropped on speedscope.app) and print what it imported as JSON:
//   {"importer": "<speedscope's console line>", "name": "...",
//    "profiles": [{"name", "unit", "total", "frames": [{"name", "self", "total"}]}]}
// "total" is the sum of the sample weights (speedscope's non-idle weight); a
// frame's "self" and "total" are speedscope's call-tree weights.  Exits 1 with
// the reason when speedscope did not import the file.  Test-only (tests/e2e).
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import jsdom from 'jsdom'

const here = path.dirname(fileURLToPath(import.meta.url))
const release = path.join(here, 'node_modules/speedscope/dist/release')
const file = process.argv[2]
if (!file) {
  console.error('usage: speedscope_import.mjs FILE')
  process.exit(2)
}
const bundle = fs.readdirSync(release).find(f => /^speedscope-.*\.js$/.test(f))
const logs = []
const vc = new jsdom.VirtualConsole()
vc.on('log', (...a) => logs.push(a.join(' ')))
vc.on('error', (...a) => logs.push('error: ' + a.map(String).join(' ')))
// The app renders with WebGL, which jsdom has not: the canvas stays blank,
// the import (which runs first) is all this reads.  Stubs for what the
// renderer and importer touch: matchMedia, scrollIntoView, TextDecoder (not in
// jsdom 24's window), alert (records the message).
const dom = new jsdom.JSDOM('<!DOCTYPE html><html><head></head><body></body></html>', {
  url: 'http://localhost/index.html#localProfilePath=none',
  runScripts: 'dangerously',
  pretendToBeVisual: true,
  virtualConsole: vc,
  beforeParse(w) {
    w.alert = m => logs.push('alert: ' + m)
    w.matchMedia = () => ({matches: false, addEventListener() {}, removeEventListener() {}})
    w.Element.prototype.scrollIntoView = function () {}
    w.TextDecoder = globalThis.TextDecoder
    w.TextEncoder = globalThis.TextEncoder
  },
})
process.on('uncaughtException', e => logs.push('exception: ' + String(e)))
const sleep = ms => new Promise(r => setTimeout(r, ms))
const w = dom.window
w.eval(fs.readFileSync(path.join(release, bundle), 'utf8'))
for (let i = 0; i < 250 && !w.speedscope; i++) await sleep(20)
if (!w.speedscope) {
  console.error('speedscope did not start:\n' + logs.join('\n'))
  process.exit(1)
}
w.speedscope.loadFileFromBase64(path.basename(file), fs.readFileSync(file).toString('base64'))

// The imported profile group, found in the app's component tree (preact: __k children).
function findGroup(v, depth) {
  if (!v || depth > 500) return null
  if (v.props && v.props.profileGroup) return v.props.profileGroup
  for (const k of v.__k || []) {
    const r = findGroup(k, depth + 1)
    if (r) return r
  }
  return null
}
let group = null
for (let i = 0; i < 1500 && !group; i++) {
  await sleep(20)
  group = findGroup(w.document.body.__k, 0)
  if (logs.some(l => l.startsWith('alert: ') || l.startsWith('Failed to load'))) break
}
const importer = logs.find(l => l.startsWith('Importing as ')) || null
if (!group) {
  console.error('speedscope did not import ' + file + ':\n' + logs.join('\n'))
  process.exit(1)
}
const out = {importer, name: group.name, profiles: []}
for (const entry of group.profiles) {
  const p = entry.profile || entry
  const frames = []
  p.forEachFrame(f => frames.push({name: f.name, self: f.getSelfWeight(), total: f.getTotalWeight()}))
  out.profiles.push({name: p.getName(), unit: p.getWeightUnit(), total: p.getTotalNonIdleWeight(), frames})
}
console.log(JSON.stringify(out))
process.exit(0)
