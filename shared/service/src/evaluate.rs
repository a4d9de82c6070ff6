//! `POST /access/evaluate`: a dry run of a rule list against a context, storing nothing.

use registry_access::{DryRun, RuleOutcome, dry_run};
use registry_core::{AccessRule, Decision, RequestContext, Violation};
use serde::{Deserialize, Serialize};

use crate::{CallPolicy, ServiceError};

/// The rules to try and the context to try them on.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvaluateRequest {
    /// Access rules, as they would be written on a definition.
    pub rules: Vec<AccessRule>,
    /// The request context (`{user, customData, account, request}`); empty when absent.
    #[serde(default)]
    pub context: RequestContext,
}

/// The decision the rules make, and what each rule gave, in evaluation order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    /// Effect, deciding rule, reason code, runtime errors.
    pub decision: Decision,
    /// Every rule's result, the ones after the deciding rule included.
    pub rules: Vec<RuleOutcome>,
}

fn located(prefix: &str, path: String, message: String) -> Violation {
    Violation { path: format!("{prefix}{path}"), message }
}

impl CallPolicy {
    /// Compiles and evaluates `request.rules` against `request.context`. Compile errors
    /// are violations at `/rules/<i>/...`, context limits at `/context/...`. The work
    /// runs off the async workers, at most a few dry runs at a time (see `CallPolicy`).
    pub async fn evaluate_access(
        &self,
        request: EvaluateRequest,
    ) -> Result<Evaluation, ServiceError> {
        let _permit = self
            .dry_runs
            .acquire()
            .await
            .map_err(|e| ServiceError::Internal(format!("dry-run queue closed: {e}")))?;
        let outcome =
            tokio::task::spawn_blocking(move || dry_run(&request.rules, &request.context))
                .await
                .map_err(|e| ServiceError::Internal(format!("dry run failed: {e}")))?;
        match outcome {
            DryRun::Evaluated { decision, rules } => Ok(Evaluation { decision, rules }),
            DryRun::InvalidRules { errors } => Err(ServiceError::Invalid(
                errors.into_iter().map(|e| located("/rules", e.path, e.message)).collect(),
            )),
            DryRun::InvalidContext { errors } => Err(ServiceError::Invalid(
                errors.into_iter().map(|e| located("/context", e.path, e.message)).collect(),
            )),
        }
    }
}
