//! The registry HTTP API as a Lambda function.

fn main() {}
