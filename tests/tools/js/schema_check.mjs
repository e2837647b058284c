// schema_check.mjs SCHEMA FILE - validate the JSON document FILE against the
// JSON schema SCHEMA with ajv; print "valid" or each error.  Exit 0 if valid.
// Test-only (tests/e2e).
import fs from 'node:fs'
import Ajv from 'ajv'

const [schemaPath, file] = process.argv.slice(2)
if (!schemaPath || !file) {
  console.error('usage: schema_check.mjs SCHEMA FILE')
  process.exit(2)
}
const ajv = new Ajv({allErrors: true, strict: false})
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, 'utf8')))
if (validate(JSON.parse(fs.readFileSync(file, 'utf8')))) {
  console.log('valid')
  process.exit(0)
}
for (const e of validate.errors.slice(0, 20)) console.log(`${e.instancePath || '/'}: ${e.message}`)
process.exit(1)
