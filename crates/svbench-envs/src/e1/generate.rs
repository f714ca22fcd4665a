//! scaffold
