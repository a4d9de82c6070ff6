//! Rollout policy evaluation (SPEC section 5).
