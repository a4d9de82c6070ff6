//! An example Bedrock action-group tool.

fn main() {}
