//! The random generators of the devices (the devices layer): draws for device tensors are made on
//! the host from the generator of the tensor's device, as a host tensor would draw them, then
//! copied up; each device's generator is seeded from the system on first use.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::torch::base::random::Generator;

static GENERATORS: Mutex<Option<HashMap<usize, Generator>>> = Mutex::new(None);

/// Runs `f` on the generator of device `ordinal`.
pub fn with_generator<R>(ordinal: usize, f: impl FnOnce(&mut Generator) -> R) -> Result<R> {
    let mut guard = GENERATORS
        .lock()
        .map_err(|_| Error::device("the device generators are poisoned"))?;
    let map = guard.get_or_insert_with(HashMap::new);
    Ok(f(map.entry(ordinal).or_insert_with(Generator::from_entropy)))
}
