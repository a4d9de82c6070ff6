"""Stands in for a deployment on the local AWS-API server (moto), so `verify` has a
function to check: `create NAME` registers a function (and the IAM role moto wants),
`allow-bedrock NAME` grants Bedrock Agents of the account the right to invoke it (what
the `aws lambda add-permission` command printed by verify does on AWS).

Run with moto's Python: .venv-moto/bin/python scripts/local-lambda.py create example-tool
The server is $DYNAMODB_ENDPOINT (scripts/dynamodb-local.sh start prints it)."""

import json
import os
import sys

import boto3

ACCOUNT = "123456789012"  # moto's account
ENDPOINT = os.environ.get("DYNAMODB_ENDPOINT") or sys.exit("set DYNAMODB_ENDPOINT (scripts/dynamodb-local.sh start)")
KW = dict(endpoint_url=ENDPOINT, region_name="us-east-1", aws_access_key_id="local", aws_secret_access_key="local")


def create(name):
    iam = boto3.client("iam", **KW)
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    try:
        iam.create_role(RoleName="local-tool-role", AssumeRolePolicyDocument=json.dumps(trust))
    except iam.exceptions.EntityAlreadyExistsException:
        pass
    arn = boto3.client("lambda", **KW).create_function(
        FunctionName=name, Runtime="provided.al2023", Handler="bootstrap",
        Role=f"arn:aws:iam::{ACCOUNT}:role/local-tool-role", Code={"ZipFile": b"local stand-in"},
    )["FunctionArn"]
    print(f"created {arn}")


def allow_bedrock(name):
    boto3.client("lambda", **KW).add_permission(
        FunctionName=name, StatementId="AllowBedrockAgents", Action="lambda:InvokeFunction",
        Principal="bedrock.amazonaws.com", SourceAccount=ACCOUNT,
        SourceArn=f"arn:aws:bedrock:us-east-1:{ACCOUNT}:agent/*",
    )
    print(f"bedrock.amazonaws.com may invoke {name} (source account {ACCOUNT})")


if __name__ == "__main__":
    commands = {"create": create, "allow-bedrock": allow_bedrock}
    if len(sys.argv) != 3 or sys.argv[1] not in commands:
        sys.exit("usage: local-lambda.py create|allow-bedrock FUNCTION_NAME")
    commands[sys.argv[1]](sys.argv[2])
