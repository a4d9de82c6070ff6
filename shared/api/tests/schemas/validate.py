"""Judges discovery answers with outside validators (run by tests/discovery.rs).

usage: validate.py SCHEMA KIND=FILE...
  KIND ServerList or ServerResponse: the MCP Registry OpenAPI 2025-12-01's schema of
  that name (SCHEMA), with openapi-schema-validator's OpenAPI 3.1 validator and its
  format checks (date-time, uri);
  KIND AgentCard: a2a-sdk's AgentCard (A2A 1.0), parsed strictly (an unknown member is
  an error) and checked for every member the protocol marks required.
Prints `valid KIND FILE` per document; exits 1 on the first invalid one.
"""

import json
import sys

from openapi_schema_validator import OAS31Validator, validate


def check_openapi(schema, kind, document):
    root = {"$ref": f"#/components/schemas/{kind}", "components": schema["components"]}
    validate(document, root, cls=OAS31Validator, format_checker=OAS31Validator.FORMAT_CHECKER)


def check_agent_card(document):
    from a2a.types import AgentCard
    from a2a.utils.proto_utils import validate_proto_required_fields
    from google.protobuf.json_format import ParseDict

    card = ParseDict(document, AgentCard())  # strict: unknown members are errors
    validate_proto_required_fields(card)
    if not card.supported_interfaces or not card.skills:
        raise ValueError("a card names its interface and its skills")


def main():
    schema = json.load(open(sys.argv[1]))
    for arg in sys.argv[2:]:
        kind, _, path = arg.partition("=")
        document = json.load(open(path))
        try:
            if kind == "AgentCard":
                check_agent_card(document)
            else:
                check_openapi(schema, kind, document)
        except Exception as e:  # any failure names the document
            print(f"invalid {kind} {path}: {e}", file=sys.stderr)
            sys.exit(1)
        print(f"valid {kind} {path}")


main()
