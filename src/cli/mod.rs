//! Headless command line (placeholder until the run command lands).
