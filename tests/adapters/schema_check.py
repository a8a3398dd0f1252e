"""A small JSON Schema (draft 2020-12) validator for the keywords contract.schema.json uses.

type, enum, const, properties, required, additionalProperties, items, minItems, minimum,
maximum, minLength, pattern, allOf, anyOf, if/then and $ref (a "#/..." pointer, resolved in the
schema resource it appears in: a schema with its own $id, such as the embedded report schema, is
a resource of its own). Any other keyword is refused, so a schema that starts using one fails
here instead of passing unchecked. Standard library only.
"""

import re

ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description", "default", "about"}
KNOWN = ANNOTATIONS | {"type", "enum", "const", "properties", "required", "additionalProperties", "items",
                       "minItems", "minimum", "maximum", "minLength", "pattern", "allOf", "anyOf", "if",
                       "then", "$ref"}


def _is(kind, v):
    if kind == "object":
        return isinstance(v, dict)
    if kind == "array":
        return isinstance(v, list)
    if kind == "string":
        return isinstance(v, str)
    if kind == "boolean":
        return isinstance(v, bool)
    if kind == "null":
        return v is None
    if kind == "integer":
        return isinstance(v, int) and not isinstance(v, bool) or (isinstance(v, float) and v.is_integer())
    if kind == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    raise ValueError(f"unknown type {kind}")


def _resolve(root, ref):
    if not ref.startswith("#"):
        raise ValueError(f"only local references are supported: {ref}")
    node = root
    for part in ref[1:].split("/")[1:]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def errors(schema, value, root=None, path="$"):
    """The list of what is wrong with `value` (empty when it is valid)."""
    if schema is True or schema == {}:
        return []
    root = schema if root is None or "$id" in schema else root
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError(f"{path}: keyword(s) not supported: {sorted(unknown)}")
    out = []
    if "$ref" in schema:
        out += errors(_resolve(root, schema["$ref"]), value, root, path)
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(k, value) for k in kinds):
            return out + [f"{path}: expected {'/'.join(kinds)}, got {type(value).__name__}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: expected {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{path}: {value} < {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{path}: {value} > {schema['maximum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            out.append(f"{path}: shorter than {schema['minLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{path}: missing {key}")
        for key, v in value.items():
            if key in props:
                out += errors(props[key], v, root, f"{path}.{key}")
            elif "additionalProperties" in schema:
                extra = schema["additionalProperties"]
                if extra is False:
                    out.append(f"{path}: unexpected {key}")
                elif isinstance(extra, dict):
                    out += errors(extra, v, root, f"{path}.{key}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, v in enumerate(value):
                out += errors(schema["items"], v, root, f"{path}[{i}]")
    for sub in schema.get("allOf", []):
        out += errors(sub, value, root, path)
    if "anyOf" in schema and all(errors(sub, value, root, path) for sub in schema["anyOf"]):
        out.append(f"{path}: matches none of anyOf")
    if "if" in schema and not errors(schema["if"], value, root, path) and "then" in schema:
        out += errors(schema["then"], value, root, path)
    return out
