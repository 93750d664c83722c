//! Scene files (placeholder).
