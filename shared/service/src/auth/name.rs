//! Principal names as people (ADR 71): two names that differ only by case, spacing,
//! compatibility forms or invisible characters (`ed`, `Ed`, ` ed `, `ed\u{200b}`, `ｅｄ`)
//! are one principal wherever the registry compares principals (a proposal's author
//! against its approver, an approval against earlier ones, the canceller against the
//! author), and `tokens add` refuses a name that only looks like an existing one.
//!
//! [`canonical_name`] is the form a new name is stored in: Unicode NFKC, every
//! `Default_Ignorable_Code_Point` removed (zero-width spaces and joiners, soft hyphens,
//! bidirectional controls, variation selectors, fillers), white space trimmed and each
//! run of it made one space. [`name_key`] is what compares: the canonical form in lower
//! case, NFKC again. Look-alikes from different scripts (Latin `e`, Cyrillic `е`) stay
//! different: confusable detection is not normalisation.

use unicode_normalization::UnicodeNormalization;

/// `name` as it is stored: NFKC, default-ignorable code points removed, white space
/// trimmed and collapsed to single spaces. Empty when nothing visible is left.
pub fn canonical_name(name: &str) -> String {
    let visible: String = name.nfkc().filter(|c| !default_ignorable(*c)).collect();
    visible.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What two names compare by: [`canonical_name`] in lower case, NFKC again (lower-casing
/// can leave a string that is not in NFKC).
pub fn name_key(name: &str) -> String {
    canonical_name(name).to_lowercase().nfkc().collect()
}

/// Whether `a` and `b` name the same principal.
pub fn same_principal(a: &str, b: &str) -> bool {
    a == b || name_key(a) == name_key(b)
}

/// Unicode's `Default_Ignorable_Code_Point` property (DerivedCoreProperties.txt):
/// characters that render as nothing unless a font shows them specially.
fn default_ignorable(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x034F
            | 0x061C
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFF8
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_are_one_principal() {
        for other in
            ["Ed", "ed ", " ed", "ed\u{200b}", "e\u{00ad}d", "\u{feff}ED", "ｅｄ", "ed\u{2060}"]
        {
            assert!(same_principal("ed", other), "{other:?}");
            assert_eq!(name_key(other), "ed", "{other:?}");
        }
        assert_eq!(canonical_name("  Ed\u{200b}  Smith\u{00a0} "), "Ed Smith");
        assert!(same_principal("ed smith", "Ed\u{3000}\u{3000}SMITH"));
        assert!(!same_principal("ed", "eddy"));
        assert!(!same_principal("ed", "\u{0435}d"), "Cyrillic е is another letter");
    }

    #[test]
    fn invisible_only_names_are_empty() {
        for name in ["", " ", "\u{200b}", "\u{200d}\u{fe0f}", "\u{3164}", "\t\u{2028}"] {
            assert_eq!(canonical_name(name), "", "{name:?}");
            assert_eq!(name_key(name), "", "{name:?}");
        }
    }
}
