//! How the workers read a trace and keep its index: a dropped `File`
//! through [`blob_source::BlobSource`] (`FileReaderSync`, in a worker),
//! with [`read_ahead`] reading the next slices asynchronously in a nested
//! worker (`read_ahead_reader.js`); a URL through [`http_source`] (ranges
//! by synchronous XHR, or one download); finished indexes in
//! [`index_cache`] (OPFS), which the page also lists and clears.

pub mod blob_source;
pub mod http_source;
pub mod index_cache;
pub mod read_ahead;
