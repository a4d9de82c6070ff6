//! Rule identity on write (SPEC section 15): every rule gets an id, and keeps it
//! across revisions.

use registry_access::AccessRule;

/// Gives every rule of `rules` without an id one: the id of a rule of `stored` (the
/// served revision's list) with the same content that no rule here uses yet, else
/// `rule-<n>` with the smallest `n` free in the list. Ids given by the client stay as
/// they are (validation checks them).
pub fn assign_rule_ids(rules: &mut [AccessRule], stored: &[AccessRule]) {
    let same = |a: &AccessRule, b: &AccessRule| {
        a.condition == b.condition && a.effect == b.effect && a.order == b.order && a.mode == b.mode
    };
    for at in 0..rules.len() {
        if rules[at].id.is_some() {
            continue;
        }
        let taken =
            |id: &str, rules: &[AccessRule]| rules.iter().any(|r| r.id.as_deref() == Some(id));
        let kept = stored
            .iter()
            .filter(|old| same(old, &rules[at]))
            .filter_map(|old| old.id.clone())
            .find(|id| !taken(id, rules));
        let id = kept.unwrap_or_else(|| {
            (1..)
                .map(|n| format!("rule-{n}"))
                .find(|id| !taken(id, rules) && !stored.iter().any(|r| r.id.as_deref() == Some(id)))
                .unwrap_or_default()
        });
        rules[at].id = Some(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use registry_access::Effect;

    fn rule(id: Option<&str>, condition: &str) -> AccessRule {
        AccessRule { id: id.map(str::to_owned), ..AccessRule::new(Effect::Allow, Some(condition)) }
    }

    fn ids(rules: &[AccessRule]) -> Vec<&str> {
        rules.iter().filter_map(|r| r.id.as_deref()).collect()
    }

    #[test]
    fn new_rules_get_the_smallest_free_number() {
        let mut rules = vec![rule(None, "a"), rule(Some("rule-1"), "b"), rule(None, "c")];
        assign_rule_ids(&mut rules, &[]);
        assert_eq!(ids(&rules), ["rule-2", "rule-1", "rule-3"]);
    }

    #[test]
    fn ids_are_kept_across_revisions() {
        let stored = vec![rule(Some("cap"), "a"), rule(Some("usd"), "b")];
        // a client that dropped the ids, reordered and added a rule
        let mut rules = vec![rule(None, "b"), rule(None, "new"), rule(None, "a")];
        assign_rule_ids(&mut rules, &stored);
        assert_eq!(ids(&rules), ["usd", "rule-1", "cap"]);
    }

    #[test]
    fn a_retired_id_is_not_reused_for_other_content() {
        let stored = vec![rule(Some("rule-1"), "old")];
        let mut rules = vec![rule(None, "new")];
        assign_rule_ids(&mut rules, &stored);
        assert_eq!(ids(&rules), ["rule-2"]);
    }
}
