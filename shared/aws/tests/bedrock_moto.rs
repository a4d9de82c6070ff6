#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Bedrock Agents against the local AWS-API server the test command starts (moto), for
//! what it serves in a form the Rust SDK reads. It implements CreateAgent, GetAgent and
//! DeleteAgent, but writes timestamps as epoch numbers where AWS's model says ISO 8601
//! (the SDK refuses to parse its agents) and takes the agent id from the segment before
//! a trailing slash the SDK does not send (so DeleteAgent by the SDK finds no agent).
//! What remains usable: the not-found answers, which is how the registry recognizes an
//! agent deleted behind its back. The rest is covered in process (tests/publish.rs).

use registry_aws::plan::Existing;
use registry_aws::{Aws, Endpoints};

fn aws() -> Aws {
    let endpoint = registry_sdk_config::local::endpoint().unwrap().to_owned();
    Aws::new(Endpoints { bedrock: Some(endpoint), ..Endpoints::default() })
}

#[tokio::test]
async fn an_agent_bedrock_does_not_have_reads_as_absent_and_is_already_unpublished() {
    let id = format!("GONE{:06}", std::process::id() % 1_000_000);
    assert_eq!(aws().read_agent(&id).await.unwrap(), Existing::default());
    aws().unpublish(&id).await.unwrap();
}
