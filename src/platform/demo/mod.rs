//! The demo backend: in-memory apps described by embedded data files.
