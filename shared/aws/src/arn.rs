//! Lambda function ARNs, split into what verification and its remedies need.

use std::fmt;

/// `arn:<partition>:lambda:<region>:<account>:function:<name>[:<qualifier>]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LambdaArn {
    /// `aws`, `aws-cn`, `aws-us-gov`.
    pub partition: String,
    /// Region, e.g. `us-east-1`.
    pub region: String,
    /// Twelve-digit account id.
    pub account: String,
    /// Function name.
    pub name: String,
    /// Version or alias, when the ARN names one.
    pub qualifier: Option<String>,
}

impl LambdaArn {
    /// Parses a function ARN; `None` when `arn` is not one.
    pub fn parse(arn: &str) -> Option<Self> {
        let mut parts = arn.split(':');
        let (
            Some("arn"),
            Some(partition),
            Some("lambda"),
            Some(region),
            Some(account),
            Some("function"),
            Some(name),
        ) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        )
        else {
            return None;
        };
        let qualifier = parts.next().map(str::to_owned);
        if parts.next().is_some() || name.is_empty() {
            return None;
        }
        Some(Self {
            partition: partition.into(),
            region: region.into(),
            account: account.into(),
            name: name.into(),
            qualifier,
        })
    }

    /// `name` or `name:qualifier`.
    pub fn name_and_qualifier(&self) -> String {
        match &self.qualifier {
            Some(q) => format!("{}:{q}", self.name),
            None => self.name.clone(),
        }
    }

    /// The `aws lambda add-permission` command that lets Bedrock agents of this account
    /// and region invoke the function (scoped by source account and agent ARN).
    pub fn add_permission_command(&self) -> String {
        format!(
            "aws lambda add-permission --function-name {self} --statement-id AllowBedrockAgents \
             --action lambda:InvokeFunction --principal bedrock.amazonaws.com \
             --source-account {account} --source-arn 'arn:{partition}:bedrock:{region}:{account}:agent/*'",
            account = self.account,
            partition = self.partition,
            region = self.region,
        )
    }
}

impl fmt::Display for LambdaArn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "arn:{}:lambda:{}:{}:function:{}",
            self.partition,
            self.region,
            self.account,
            self.name_and_qualifier()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arns_round_trip_and_name_their_parts() {
        let arn =
            LambdaArn::parse("arn:aws:lambda:eu-west-1:123456789012:function:tool:live").unwrap();
        assert_eq!((arn.region.as_str(), arn.account.as_str()), ("eu-west-1", "123456789012"));
        assert_eq!(arn.name_and_qualifier(), "tool:live");
        assert_eq!(arn.to_string(), "arn:aws:lambda:eu-west-1:123456789012:function:tool:live");
        assert!(
            arn.add_permission_command()
                .contains("--source-arn 'arn:aws:bedrock:eu-west-1:123456789012:agent/*'")
        );
        assert!(LambdaArn::parse("arn:aws:s3:::bucket").is_none());
        assert!(LambdaArn::parse("arn:aws:lambda:r:1:function:").is_none());
    }
}
