//! The local AWS-API server's SQS, over its query protocol (the server does not check
//! signatures): enough to create a queue and read what EventBridge delivered to it.

use serde_json::Value;

/// One query-protocol call; the XML answer.
pub async fn call(endpoint: &str, form: &[(&str, &str)]) -> String {
    let auth = "AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=e2e";
    let reply = reqwest::Client::new().post(endpoint).header("authorization", auth).form(form);
    let reply = reply.send().await.unwrap_or_else(|e| panic!("SQS at {endpoint}: {e}"));
    reply.text().await.unwrap_or_else(|e| panic!("SQS answer: {e}"))
}

/// Creates the queue `name`; its URL.
pub async fn create_queue(endpoint: &str, name: &str) -> String {
    let created = call(endpoint, &[("Action", "CreateQueue"), ("QueueName", name)]).await;
    let url = created.split("<QueueUrl>").nth(1).and_then(|s| s.split('<').next());
    url.unwrap_or_else(|| panic!("no queue URL in {created}")).to_owned()
}

/// The bodies of one `ReceiveMessage` (at most 10 messages), parsed as JSON.
pub async fn receive(endpoint: &str, queue: &str) -> Vec<Value> {
    let form = [("Action", "ReceiveMessage"), ("QueueUrl", queue), ("MaxNumberOfMessages", "10")];
    call(endpoint, &form)
        .await
        .split("<Body>")
        .skip(1)
        .filter_map(|b| b.split("</Body>").next())
        .map(|b| {
            b.replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .map(|b| serde_json::from_str(&b).unwrap_or_else(|e| panic!("message {b}: {e}")))
        .collect()
}
