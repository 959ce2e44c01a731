"""Strict validation of request bodies against the Kubernetes OpenAPI v2 spec.

Loads swagger.json (shared/k8s-openapi/swagger.json) and checks a body
against a definition such as io.k8s.api.core.v1.Pod, following $ref.  It is
stricter than a real server's default: an unknown field is an error, as
with kubectl --validate=strict (fieldValidation=Strict), so that a typo in
what kaid sends fails in tests instead of being dropped silently.

What is checked: JSON types (integer formats int32/int64 with their range,
number, boolean, string, array, object), required fields, unknown fields,
map values (additionalProperties), date-time and byte formats,
IntOrString (an integer or a string) and resource.Quantity (a string in the
quantity grammar: a JSON number is rejected, see README).  null is accepted
for any optional field, as Go's decoder reads it as "unset".

errors() returns [(path, cause reason, detail)] ready for objects.invalid().
"""

import base64
import binascii
import json
import re

QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY_RE = re.compile(
    r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)"
    r"(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$")
DATE_TIME_RE = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
INT_RANGE = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}
MAX_ERRORS = 20     # a real server also stops listing after a while


class Schema:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        self.defs = doc.get("definitions")
        if not isinstance(self.defs, dict):
            raise ValueError("%s: no \"definitions\": not a swagger 2.0 "
                             "file" % path)

    def errors(self, defname, value):
        """Validate value against definitions[defname]."""
        errs = []
        self._check({"$ref": "#/definitions/" + defname}, value, "", errs)
        return errs[:MAX_ERRORS]

    def _resolve(self, schema):
        ref = schema.get("$ref")
        if not ref:
            return schema, None
        name = ref.rsplit("/", 1)[-1]
        return self.defs[name], name

    def _check(self, schema, value, path, errs):
        if len(errs) >= MAX_ERRORS or value is None:
            return
        schema, name = self._resolve(schema)
        here = path or "<root>"
        if name == QUANTITY:
            if not isinstance(value, str):
                errs.append((here, "FieldValueTypeInvalid",
                             "Invalid value: %s: must be a string "
                             "(resource quantity)" % json.dumps(value)))
            elif not QUANTITY_RE.match(value):
                errs.append((here, "FieldValueInvalid",
                             "Invalid value: %s: quantities must match the "
                             "regular expression '%s'"
                             % (json.dumps(value), QUANTITY_RE.pattern)))
            return
        if name == INT_OR_STRING or schema.get("format") == "int-or-string":
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                self._type_error(value, "integer or string", here, errs)
            return
        stype = schema.get("type")
        if stype is None and "properties" not in schema:
            return                      # free-form (e.g. JSON, RawExtension)
        if stype == "object" or "properties" in schema:
            self._check_object(schema, value, path, here, errs)
        elif stype == "array":
            if not isinstance(value, list):
                return self._type_error(value, "array", here, errs)
            for i, item in enumerate(value):
                self._check(schema.get("items", {}), item,
                            "%s[%d]" % (path, i), errs)
        else:
            self._check_scalar(schema, stype, value, here, errs)

    def _check_object(self, schema, value, path, here, errs):
        if not isinstance(value, dict):
            return self._type_error(value, "object", here, errs)
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        for req in schema.get("required", ()):
            if value.get(req) is None:
                errs.append((_join(path, req), "FieldValueRequired",
                             "Required value"))
        for key, item in value.items():
            sub = _join(path, key)
            if props is not None and key in props:
                self._check(props[key], item, sub, errs)
            elif isinstance(extra, dict):
                self._check(extra, item, "%s[%s]" % (path, key), errs)
            elif props is not None:
                errs.append((sub, "FieldValueNotSupported", "unknown field"))

    def _check_scalar(self, schema, stype, value, here, errs):
        fmt = schema.get("format")
        if stype == "integer":
            if isinstance(value, bool) or not isinstance(value, int):
                return self._type_error(value, "integer", here, errs)
            lo, hi = INT_RANGE.get(fmt, INT_RANGE["int64"])
            if not lo <= value <= hi:
                errs.append((here, "FieldValueInvalid",
                             "Invalid value: %d: must fit in %s"
                             % (value, fmt or "int64")))
        elif stype == "number":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self._type_error(value, "number", here, errs)
        elif stype == "boolean":
            if not isinstance(value, bool):
                self._type_error(value, "boolean", here, errs)
        elif stype == "string":
            if not isinstance(value, str):
                return self._type_error(value, "string", here, errs)
            if fmt == "date-time" and not DATE_TIME_RE.match(value):
                errs.append((here, "FieldValueInvalid",
                             "Invalid value: %s: must be an RFC 3339 "
                             "date-time" % json.dumps(value)))
            elif fmt == "byte":
                try:
                    base64.b64decode(value, validate=True)
                except (binascii.Error, ValueError):
                    errs.append((here, "FieldValueInvalid",
                                 "Invalid value: must be base64"))
            if "enum" in schema and value not in schema["enum"]:
                errs.append((here, "FieldValueNotSupported",
                             "Unsupported value: %s" % json.dumps(value)))

    @staticmethod
    def _type_error(value, want, here, errs):
        shown = json.dumps(value)
        if len(shown) > 40:
            shown = shown[:37] + "..."
        errs.append((here, "FieldValueTypeInvalid",
                     "Invalid value: %s: must be of type %s" % (shown, want)))


def _join(path, key):
    return "%s.%s" % (path, key) if path else key
