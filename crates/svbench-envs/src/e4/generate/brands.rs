//! The fictional brands the generator writes about, read from the shared
//! `datasets/e4/brands.toml` (the indicator extractor reads the same file, so
//! a lookalike the generator derives is measured against the same labels).

use std::sync::OnceLock;

use serde::Deserialize;

/// The brand list as committed.
pub const BRANDS_TOML: &str = include_str!("../../../../../datasets/e4/brands.toml");

/// One brand of the list.
#[derive(Debug, Clone, Deserialize)]
pub struct Brand {
    /// Canonical name (`Northwind Bank`).
    pub name: String,
    /// Other display names that claim the brand.
    #[serde(default)]
    pub names: Vec<String>,
    /// Official registrable domains; the first is the mail and web domain.
    pub domains: Vec<String>,
    /// Labels lookalikes are measured against.
    #[serde(default)]
    pub labels: Vec<String>,
    /// The brand's own link shorteners.
    #[serde(default)]
    pub shorteners: Vec<String>,
    /// `bank`, `carrier`, …
    pub kind: String,
    /// Generated brands only.
    #[serde(default)]
    pub fictional: bool,
}

impl Brand {
    /// The domain the brand mails and links from.
    pub fn domain(&self) -> &str {
        &self.domains[0]
    }

    /// The label lookalikes start from: the longest, which reads as the brand.
    pub fn label(&self) -> &str {
        self.labels.iter().max_by_key(|l| l.len()).map_or_else(
            || self.domain().split('.').next().unwrap_or(""),
            String::as_str,
        )
    }

    /// Every name that claims the brand (canonical first).
    pub fn all_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str()).chain(self.names.iter().map(String::as_str))
    }
}

#[derive(Deserialize)]
struct BrandFile {
    brand: Vec<Brand>,
}

/// Every brand of the list (fictional and real).
pub fn all() -> &'static [Brand] {
    static BRANDS: OnceLock<Vec<Brand>> = OnceLock::new();
    BRANDS.get_or_init(|| {
        toml::from_str::<BrandFile>(BRANDS_TOML)
            .expect("datasets/e4/brands.toml parses (checked by a test)")
            .brand
    })
}

/// The fictional brand called `name`.
pub fn brand(name: &str) -> &'static Brand {
    all()
        .iter()
        .find(|b| b.fictional && b.name == name)
        .unwrap_or_else(|| panic!("brand `{name}` is in datasets/e4/brands.toml"))
}

/// Brands reserved for the ood split: never used in train, dev or test.
pub const OOD_BRANDS: &[&str] = &[
    "Wingtip Revenue Agency",
    "Fourth Coffee Rewards",
    "Coho Crypto",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_parses_and_fictional_domains_are_reserved() {
        let fictional: Vec<_> = all().iter().filter(|b| b.fictional).collect();
        assert!(fictional.len() >= 16);
        for b in fictional {
            for d in &b.domains {
                assert!(
                    d.ends_with(".example") || d.ends_with(".test") || d == "example.com",
                    "{d}"
                );
            }
        }
        for name in OOD_BRANDS {
            assert!(brand(name).fictional);
        }
        assert_eq!(brand("Northwind Bank").label(), "northwindbank");
    }
}
