#!/usr/bin/env python3
"""Writes contract.schema.json: JSON Schema (draft 2020-12) for the documents of the ock/1 contract.

    python3 scripts/contract_schema.py [-o FILE]      (make contract-schema: build/contract.schema.json)

Sources, each shape from one place:
  core/requirements.json     the registry: contract version, capabilities, verdicts, requirement
                             ids, each event's required and optional fields, and (when the registry
                             has it) the config section with each option's type, range and default
  core/contract-shapes.json  what the registry does not hold: the JSON type of each event field,
                             the session document around its config, HookResult, ToolResult, the
                             manifest and the fixture's top level
  reports/report.schema.json report.json, embedded as it is (its own $id keeps its references)

$defs of the result: session, config, event (any event; a known name checks its data), data:<event>,
hook_result, tool_result, manifest, fixture, report, and the enums they use. An event field the
registry names and contract-shapes.json does not type is an error, so a new field gets a type.
Python 3 standard library only.
"""

import argparse
import json
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SCHEMA_ID = "https://ock.invalid/schema/contract.schema.json"


def load(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return json.load(f)


def config_option(opt):
    """One option of the registry's config section as a JSON Schema property."""
    kind = opt["type"]
    if kind == "enum":
        prop = {"enum": list(opt["values"])}
    elif kind in ("integer", "number", "boolean", "string"):
        prop = {"type": kind}
    else:
        raise SystemExit(f"contract_schema: config option {opt['name']}: unknown type {kind!r}")
    for key in ("minimum", "maximum", "default"):
        if key in opt:
            prop[key] = opt[key]
    if opt.get("meaning"):
        prop["description"] = opt["meaning"]
    return prop


def config_defs(registry):
    """The served config (every option) and a fixture's config (any subset)."""
    options = registry.get("config")
    if not options:
        note = "The registry holds no config section: the options are not typed here (SPEC.md 7.4)."
        return {"type": "object", "description": note}, {"type": "object", "description": note}
    props = {opt["name"]: config_option(opt) for opt in options}
    served = {"description": "The session's config as the mock serves it: every option, defaults filled in (SPEC.md 7.4).",
              "type": "object", "required": [opt["name"] for opt in options], "properties": props}
    fixture = {"description": "A fixture's config: any subset of the options; the rest take their defaults (SPEC.md 8.2).",
               "type": "object", "properties": props}
    return served, fixture


def event_defs(registry, shapes):
    """data:<name> for each registry event, and event: any event, checked by name when known."""
    types = shapes["field_types"]
    overrides = shapes.get("event_field_overrides", {})
    lifecycle = shapes.get("lifecycle_fields", [])
    defs = {}
    branches = []
    for ev in registry["events"]:
        name = ev["name"]
        props = {}
        for field in ev["required"] + ev["optional"] + lifecycle:
            shape = overrides.get(name, {}).get(field, types.get(field))
            if shape is None:
                raise SystemExit(f"contract_schema: field {field} of {name} has no type in core/contract-shapes.json")
            props[field] = shape
        defs[f"data:{name}"] = {
            "description": f"The data of {name} (stage {ev['stage']}, capability {ev['capability']}); other fields may be added.",
            "type": "object", "required": list(ev["required"]), "properties": props}
        branches.append({"if": {"required": ["event"], "properties": {"event": {"const": name}}},
                         "then": {"properties": {"data": {"$ref": f"#/$defs/data:{name}"}}}})
    defs["event_name"] = {"enum": [ev["name"] for ev in registry["events"]]}
    defs["event"] = {
        "description": "One event as POSTed to /ock/v1/events (SPEC.md 4.1, 7.5): a known name's data is checked; custom events carry any object.",
        "type": "object", "required": ["event", "data"],
        "properties": {"event": {"type": "string", "minLength": 1}, "data": {"type": "object"}},
        "allOf": branches}
    return defs


def build():
    registry = load("core/requirements.json")
    shapes = load("core/contract-shapes.json")
    report = load("reports/report.schema.json")
    served, fixture_config = config_defs(registry)
    defs = {
        "contract_version": {"const": registry["contract_version"]},
        "capability": {"enum": list(registry["capabilities"])},
        "verdict": {"enum": list(registry["verdicts"])},
        "requirement_id": {"enum": [r["id"] for r in registry["requirements"]]},
        "config": served,
        "fixture_config": fixture_config,
    }
    defs.update(event_defs(registry, shapes))
    for key, shape in shapes["defs"].items():
        if key in defs:
            raise SystemExit(f"contract_schema: $defs/{key} is made from the registry; core/contract-shapes.json may not define it")
        defs[key] = shape
    defs["report"] = report
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"The {registry['contract_version']} contract of the Orchestrator Conformance Kit",
        "description": "Generated by scripts/contract_schema.py from core/requirements.json, core/contract-shapes.json and reports/report.schema.json; do not edit. Validate a document against one of $defs: session, event, hook_result, tool_result, manifest, fixture, report.",
        "$defs": defs,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", help="the file to write (default: stdout)")
    args = ap.parse_args()
    text = json.dumps(build(), indent=1, ensure_ascii=False) + "\n"
    if args.output:
        tmp = args.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, args.output)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
