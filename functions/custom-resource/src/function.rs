//! One invocation, guarded: whatever happens (bad event, bad properties, a panic, the
//! store hanging), a response is PUT to the `ResponseURL` before the Lambda's deadline.

use std::panic::AssertUnwindSafe;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::FutureExt;
use lambda_runtime::LambdaEvent;
use registry_service::Registry;
use registry_service::{JsonError, parse_strict};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::event::{CfnRequest, CfnResponse, Status};
use crate::failure::{Failure, Undelivered};
use crate::{provider, reason, respond};

/// Shortest time kept back from the work for answering.
const MIN_RESERVE: Duration = Duration::from_millis(500);
/// Longest time kept back from the work for answering.
const MAX_RESERVE: Duration = Duration::from_secs(5);

/// The custom-resource function: the registry and the HTTP client for responses.
#[derive(Debug, Clone)]
pub struct Function {
    registry: Registry,
    http: reqwest::Client,
}

impl Function {
    /// A function over `registry`.
    pub fn new(registry: Registry) -> Self {
        Self { registry, http: reqwest::Client::new() }
    }

    /// Serves one Lambda invocation ([`Function::invoke`] before the invocation's deadline):
    /// `Status` and `PhysicalResourceId` of the response delivered, or the error when none
    /// could be.
    pub async fn handle(
        &self,
        event: LambdaEvent<Box<RawValue>>,
    ) -> Result<Value, lambda_runtime::Error> {
        let deadline = UNIX_EPOCH + Duration::from_millis(event.context.deadline);
        match self.invoke(event.payload.get(), deadline.max(SystemTime::now())).await {
            Ok(response) => Ok(serde_json::json!({
                "Status": response.status,
                "PhysicalResourceId": response.physical_resource_id,
            })),
            Err(why) => {
                tracing::error!(error = %why, "no response delivered to CloudFormation");
                Err(lambda_runtime::Error::from(why))
            }
        }
    }

    /// Handles the raw event `raw` with the Lambda deadline `deadline`: carries it out,
    /// PUTs the response, and returns it. `Err` only when no response could be delivered
    /// (no `ResponseURL`, or the URL unreachable).
    pub async fn invoke(
        &self,
        raw: &str,
        deadline: SystemTime,
    ) -> Result<CfnResponse, Undelivered> {
        let request: CfnRequest = serde_json::from_str(raw).unwrap_or_default();
        if request.response_url.is_empty() {
            return Err(Undelivered::NoResponseUrl);
        }
        let outcome = match parse_strict(raw.as_bytes()) {
            Err(JsonError::DuplicateKey(v)) => {
                Err(Failure::Malformed { message: v.message, path: v.path })
            }
            Err(e @ JsonError::Syntax(_)) => Err(Failure::Syntax(e.to_string())),
            Ok(_) => self.carry_out(&request, deadline).await,
        };
        let response = response(&request, outcome);
        match &response.reason {
            Some(why) => tracing::warn!(
                request_type = %request.request_type, logical_id = %request.logical_resource_id,
                reason = %why, "answering FAILED"
            ),
            None => tracing::info!(
                request_type = %request.request_type, logical_id = %request.logical_resource_id,
                physical_id = %response.physical_resource_id, "answering SUCCESS"
            ),
        }
        let left = remaining(deadline);
        let per_attempt = (left / 3).max(Duration::from_millis(200));
        respond::send(&self.http, &request.response_url, &response, per_attempt).await?;
        Ok(response)
    }

    /// Runs the request within the time left minus the reserve for answering.
    async fn carry_out(
        &self,
        request: &CfnRequest,
        deadline: SystemTime,
    ) -> Result<provider::Done, Failure> {
        let left = remaining(deadline);
        let budget = left.saturating_sub((left / 5).clamp(MIN_RESERVE, MAX_RESERVE));
        guarded(provider::handle(&self.registry, request), budget).await
    }
}

/// Runs `work` for at most `budget`; a panic or the timeout becomes the failure reason.
async fn guarded<F>(work: F, budget: Duration) -> Result<provider::Done, Failure>
where
    F: Future<Output = Result<provider::Done, Failure>>,
{
    match tokio::time::timeout(budget, AssertUnwindSafe(work).catch_unwind()).await {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(panic)) => Err(Failure::Panic(panic_message(&*panic))),
        Err(_) => Err(Failure::TimedOut(budget.as_millis())),
    }
}

/// The response to `request` for `outcome`.
fn response(request: &CfnRequest, outcome: Result<provider::Done, Failure>) -> CfnResponse {
    let base = |status, reason, physical_resource_id, data| CfnResponse {
        status,
        reason,
        physical_resource_id,
        stack_id: request.stack_id.clone(),
        request_id: request.request_id.clone(),
        logical_resource_id: request.logical_resource_id.clone(),
        data,
    };
    match outcome {
        Ok(done) => base(Status::Success, None, done.physical_id, Some(done.data)),
        Err(why) => base(
            Status::Failed,
            Some(reason::one_line(&why.to_string())),
            provider::physical_id_on_failure(request),
            None,
        ),
    }
}

fn remaining(deadline: SystemTime) -> Duration {
    deadline.duration_since(SystemTime::now()).unwrap_or_default()
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_becomes_a_failure_reason() {
        let work = async {
            let id: Option<&str> = None;
            Ok(provider::Done {
                physical_id: id.map(str::to_owned).unwrap_or_else(|| panic!("no id here")),
                data: serde_json::Map::new(),
            })
        };
        let err = guarded(work, Duration::from_secs(5)).await.unwrap_err().to_string();
        assert_eq!(err, "internal error (panic): no id here");
    }

    #[tokio::test]
    async fn work_past_the_budget_is_cut_off_with_a_reason() {
        let err = guarded(std::future::pending(), Duration::from_millis(20))
            .await
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("timed out after 20 ms"), "{err}");
    }
}
