//! HTTP summarizers for providers (being written).
