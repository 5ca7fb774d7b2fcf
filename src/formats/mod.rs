//! Provider wire formats (being written).
