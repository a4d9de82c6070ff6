//! Typed Bedrock action-group Lambda events and responses for tool authors.
