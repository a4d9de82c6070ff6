//! Mapping of SDK errors to [`StoreError`].

use aws_sdk_dynamodb::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use registry_store::StoreError;

/// Error codes that mean "try again later" (after the SDK's own retries gave up).
const TRANSIENT_CODES: &[&str] = &[
    "ThrottlingException",
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
    "TransactionInProgressException",
    "LimitExceededException",
];

/// Whether a service error code is transient.
pub fn is_transient(code: &str) -> bool {
    TRANSIENT_CODES.contains(&code)
}

/// Maps any SDK error: throttling, timeouts and connection failures are
/// [`StoreError::Unavailable`], everything else [`StoreError::Backend`].
pub fn sdk<E, R>(operation: &str, err: SdkError<E, R>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    let transient = match &err {
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) => true,
        SdkError::ServiceError(service) => service.err().code().is_some_and(is_transient),
        _ => false,
    };
    let message = format!("DynamoDB {operation}: {}", DisplayErrorContext(&err));
    if transient { StoreError::Unavailable(message) } else { StoreError::Backend(message) }
}
