// Compiles JSON Schemas with Ajv (draft 2020-12) in strict mode, every
// strict option on, and validates documents against them. Reads from
// stdin {"schemas": {NAME: SCHEMA}, "docs": [{"schema": NAME, "doc": DOC}]}
// and prints {"compiled": {NAME: null or the error}, "docs": [null or the
// errors]}: a schema that did not compile fails each of its documents.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const options = {
  strict: true, strictSchema: true, strictNumbers: true, strictTypes: true,
  strictTuples: true, strictRequired: true, allErrors: true,
};
const compiled = {};
const validators = {};
for (const [name, schema] of Object.entries(input.schemas)) {
  // A validator of its own per schema: a strict-mode complaint is thrown
  // by compile, and one schema's failure leaves the others' verdicts.
  const ajv = addFormats(new Ajv2020(options));
  try {
    validators[name] = ajv.compile(schema);
    compiled[name] = null;
  } catch (err) {
    compiled[name] = String(err.message || err);
  }
}
const docs = (input.docs || []).map(({ schema, doc }) => {
  const validate = validators[schema];
  if (!validate) return [compiled[schema] ?? `no schema ${schema}`];
  return validate(doc) ? null : validate.errors.map((e) => `${e.instancePath || "/"} ${e.message} (${e.schemaPath})`);
});
process.stdout.write(JSON.stringify({ compiled, docs }));
