//! A connection's counters, with torch-ipc's `netStats` names (the Lua table is made by
//! `transfer::stats_table`).

/// One direction's counters, with torch-ipc's `netStats` names.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub num_bytes: u64,
    pub num_regions: u64,
    pub num_calls: u64,
    pub num_system_calls: u64,
    pub total_seconds: f64,
    pub system_seconds: f64,
    /// Device bytes moved by CUDA IPC handle, and the seconds those transfers took.
    pub cuda_ipc_bytes: u64,
    pub cuda_ipc_seconds: f64,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        self.num_bytes += o.num_bytes;
        self.num_regions += o.num_regions;
        self.num_calls += o.num_calls;
        self.num_system_calls += o.num_system_calls;
        self.total_seconds += o.total_seconds;
        self.system_seconds += o.system_seconds;
        self.cuda_ipc_bytes += o.cuda_ipc_bytes;
        self.cuda_ipc_seconds += o.cuda_ipc_seconds;
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct NetStats {
    pub tx: Stats,
    pub rx: Stats,
}

impl NetStats {
    pub fn add(&mut self, o: &NetStats) {
        self.tx.add(&o.tx);
        self.rx.add(&o.rx);
    }
}
