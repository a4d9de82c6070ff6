//! The shared backend contract suite against DynamoDB (moto on loopback).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

registry_store::contract_tests!(common::fixture());
