"""Judges standard answers with outside validators (run by tests/discovery.rs).

usage: validate.py SCHEMAS_DIR KIND=FILE...
  KIND ServerList or ServerResponse: the MCP Registry OpenAPI 2025-12-01's schema of
  that name (mcp-registry-2025-12-01.json), with openapi-schema-validator's OpenAPI 3.1
  validator and its format checks (date-time, uri);
  KIND McpRegistryExchange: a request and its answer (`{method, path, query, status,
  contentType, body}`), both judged by openapi-core against the same OpenAPI document's
  operations (parameters typed as upstream types them);
  KIND AgentCard: a2a-sdk's AgentCard (A2A 1.0), parsed strictly (an unknown member is
  an error) and checked for every member the protocol marks required;
  KIND AICatalog: the AI Catalog draft's CDDL as JSON Schema (ai-catalog-cddl.schema.json);
  KIND OpenIDConfiguration: Authlib's OIDC Discovery 1.0 (OpenIDProviderMetadata) and RFC
  8414 (AuthorizationServerMetadata) validators, every check; the one failure allowed is
  the token endpoint's absence (the registry supports no OAuth grant: docs/discovery.md);
  KIND ProtectedResource: RFC 9728 section 2 as JSON Schema
  (rfc9728-protected-resource.schema.json).
Prints `valid KIND FILE` per document; exits 1 on the first invalid one.
"""

import json
import os
import sys

from openapi_schema_validator import OAS31Validator, validate

# The registry issues principal tokens through resolution, not an OAuth grant: RFC 8414
# requires a token endpoint "unless only the implicit grant type is supported", and the
# registry supports none (grant_types_supported is empty). Every other check must pass.
ALLOWED_METADATA_FAILURES = {'"token_endpoint" is required'}


def load(directory, name):
    with open(os.path.join(directory, name)) as f:
        return json.load(f)


def check_openapi(schema, kind, document):
    root = {"$ref": f"#/components/schemas/{kind}", "components": schema["components"]}
    validate(document, root, cls=OAS31Validator, format_checker=OAS31Validator.FORMAT_CHECKER)


def check_exchange(schema, exchange):
    from openapi_core import OpenAPI
    from openapi_core.testing import MockRequest, MockResponse

    api = OpenAPI.from_dict(schema)
    request = MockRequest(
        "http://localhost", exchange["method"].lower(), exchange["path"], args=exchange["query"]
    )
    api.validate_request(request)
    response = MockResponse(
        json.dumps(exchange["body"]).encode(),
        status_code=exchange["status"],
        content_type=exchange["contentType"],
    )
    api.validate_response(request, response)


def check_agent_card(document):
    from a2a.types import AgentCard
    from a2a.utils.proto_utils import validate_proto_required_fields
    from google.protobuf.json_format import ParseDict

    card = ParseDict(document, AgentCard())  # strict: unknown members are errors
    validate_proto_required_fields(card)
    if not card.supported_interfaces or not card.skills:
        raise ValueError("a card names its interface and its skills")


def check_json_schema(schema, document):
    from jsonschema import Draft202012Validator, FormatChecker

    Draft202012Validator.check_schema(schema)
    errors = sorted(
        Draft202012Validator(schema, format_checker=FormatChecker()).iter_errors(document),
        key=str,
    )
    if errors:
        raise ValueError("; ".join(f"{list(e.absolute_path)}: {e.message}" for e in errors))


def check_openid_configuration(document):
    from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
    from authlib.oidc.discovery import OpenIDProviderMetadata

    for cls in (OpenIDProviderMetadata, AuthorizationServerMetadata):
        metadata = cls(document)
        failures = set()
        checks = [name for name in dir(metadata) if name.startswith("validate_")]
        if len(checks) < 10:
            raise ValueError(f"{cls.__name__}: only {len(checks)} checks found")
        for name in checks:
            try:
                getattr(metadata, name)()
            except ValueError as e:
                failures.add(str(e))
        if not failures <= ALLOWED_METADATA_FAILURES:
            raise ValueError(f"{cls.__name__}: {sorted(failures - ALLOWED_METADATA_FAILURES)}")
        # the whole validate() fails on exactly the allowed one
        try:
            metadata.validate()
        except ValueError as e:
            if str(e) not in ALLOWED_METADATA_FAILURES:
                raise


def main():
    directory = sys.argv[1]
    registry = load(directory, "mcp-registry-2025-12-01.json")
    for arg in sys.argv[2:]:
        kind, _, path = arg.partition("=")
        with open(path) as f:
            document = json.load(f)
        try:
            if kind == "AgentCard":
                check_agent_card(document)
            elif kind == "McpRegistryExchange":
                check_exchange(registry, document)
            elif kind == "AICatalog":
                check_json_schema(load(directory, "ai-catalog-cddl.schema.json"), document)
            elif kind == "ProtectedResource":
                check_json_schema(load(directory, "rfc9728-protected-resource.schema.json"), document)
            elif kind == "OpenIDConfiguration":
                check_openid_configuration(document)
            else:
                check_openapi(registry, kind, document)
        except Exception as e:  # any failure names the document
            print(f"invalid {kind} {path}: {e!r}", file=sys.stderr)
            sys.exit(1)
        print(f"valid {kind} {path}")


main()
