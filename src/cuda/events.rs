//! Ordering work between streams without waiting on the host (the devices layer): an event recorded
//! on one stream completes when the work queued there so far has, and another stream (of any
//! device) can be made to wait for it. cutorch's streamWaitFor and streamBarrier are built on this,
//! and so are copies between devices, whose two sides run on two devices' streams.

use std::sync::Arc;

use cudarc::driver::result as cu;
use cudarc::driver::sys;

use super::device::{self, Device};
use super::driver::{self, guard};
use crate::error::Result;

/// A stream of a device: the device (0-based) and cutorch's stream index (0: the default one).
pub type Place = (usize, usize);

/// An event recorded on a stream, destroyed when dropped (the driver keeps what a stream still
/// waits for).
struct Recorded {
    device: Arc<Device>,
    event: sys::CUevent,
}

impl Drop for Recorded {
    fn drop(&mut self) {
        // Errors cannot be reported from a drop; an event left behind costs little.
        let _ = guard("cuEventDestroy", || {
            self.device.bind()?;
            // SAFETY: created once by `record`, destroyed once, here.
            unsafe { cu::event::destroy(self.event) }.map_err(driver::error)
        });
    }
}

/// Records an event on `stream` of `dev` (binding `dev`).
fn record(dev: &Arc<Device>, stream: sys::CUstream) -> Result<Recorded> {
    dev.bind()?;
    guard("cuEventRecord", || {
        let event = cu::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).map_err(driver::error)?;
        let recorded = Recorded {
            device: dev.clone(),
            event,
        };
        // SAFETY: a live event and a stream of the bound context.
        unsafe { cu::event::record(event, stream) }.map_err(driver::error)?;
        Ok(recorded)
    })
}

/// Makes `stream` of `dev` wait for `event` before its later work (binding `dev`).
fn wait(dev: &Device, stream: sys::CUstream, event: &Recorded) -> Result<()> {
    dev.bind()?;
    guard("cuStreamWaitEvent", || {
        // SAFETY: a live event and a stream of the bound context.
        unsafe { cu::stream::wait_event(stream, event.event, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT) }
            .map_err(driver::error)
    })
}

/// Makes later work on `stream` of `waiting` start only after the work queued so far on
/// `stream_on` of `on`.
pub fn order(waiting: &Arc<Device>, stream: sys::CUstream, on: &Arc<Device>, stream_on: sys::CUstream) -> Result<()> {
    if Arc::ptr_eq(waiting, on) && stream == stream_on {
        return Ok(());
    }
    let event = record(on, stream_on)?;
    wait(waiting, stream, &event)
}

fn open(place: Place) -> Result<(Arc<Device>, sys::CUstream)> {
    let dev = device::get(place.0)?;
    let stream = dev.stream(place.1)?;
    Ok((dev, stream))
}

/// cutorch.streamWaitFor: `waiting` waits for what is queued now on each of `on`.
pub fn wait_for(waiting: Place, on: &[Place]) -> Result<()> {
    let (wdev, wstream) = open(waiting)?;
    let events = on
        .iter()
        .filter(|&&p| p != waiting)
        .map(|&p| {
            let (dev, stream) = open(p)?;
            record(&dev, stream)
        })
        .collect::<Result<Vec<_>>>()?;
    events.iter().try_for_each(|e| wait(&wdev, wstream, e))
}

/// cutorch.streamBarrier: each of `all` waits for what is queued now on every other.
pub fn barrier(all: &[Place]) -> Result<()> {
    let opened = all.iter().map(|&p| open(p)).collect::<Result<Vec<_>>>()?;
    let events = opened
        .iter()
        .map(|(dev, stream)| record(dev, *stream))
        .collect::<Result<Vec<_>>>()?;
    for (i, (dev, stream)) in opened.iter().enumerate() {
        for (j, event) in events.iter().enumerate() {
            if all[i] != all[j] {
                wait(dev, *stream, event)?;
            }
        }
    }
    Ok(())
}
