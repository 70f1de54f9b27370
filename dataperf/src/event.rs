//! The events the analysis consumes: plain values, independent of OMPT, so the detectors can
//! be tested on synthetic streams.

/// A code location: index into the tool's table of return addresses (0: unknown).
pub type SiteId = u32;
/// A mapped variable: index into the tool's table of map-clause names (0: unknown).
pub type VarId = u32;
/// An adaptive region of the ompadapt runtime (0: none).
pub type RegionId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    Alloc,
    ToDevice,
    FromDevice,
    /// Between two target devices (omp_target_memcpy): no host side to hash.
    DeviceToDevice,
    Delete,
    Associate,
    Disassociate,
}

impl OpKind {
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Alloc => "alloc",
            OpKind::ToDevice => "to_device",
            OpKind::FromDevice => "from_device",
            OpKind::DeviceToDevice => "device_to_device",
            OpKind::Delete => "delete",
            OpKind::Associate => "associate",
            OpKind::Disassociate => "disassociate",
        }
    }

    pub fn is_transfer(self) -> bool {
        matches!(self, OpKind::ToDevice | OpKind::FromDevice | OpKind::DeviceToDevice)
    }
}

/// One completed data operation.
#[derive(Clone, Copy, Debug)]
pub struct DataOp {
    pub kind: OpKind,
    pub src_dev: i32,
    pub dst_dev: i32,
    pub src_addr: u64,
    pub dst_addr: u64,
    /// As reported (libomptarget 19 reports 0 for deletes).
    pub bytes: u64,
    pub site: SiteId,
    pub var: VarId,
    pub region: RegionId,
    /// Begin and end, ns since the tool started.
    pub begin: u64,
    pub end: u64,
    /// Content hash of the transferred bytes, where one side is host memory.
    pub hash: Option<u128>,
}

impl DataOp {
    pub fn ns(&self) -> u64 {
        self.end.saturating_sub(self.begin)
    }

    /// The target device the operation concerns (the device side of a transfer, the device an
    /// allocation or deletion is on).
    pub fn device(&self) -> i32 {
        match self.kind {
            OpKind::Alloc | OpKind::ToDevice | OpKind::Associate | OpKind::DeviceToDevice => self.dst_dev,
            OpKind::FromDevice | OpKind::Delete | OpKind::Disassociate => self.src_dev,
        }
    }

    /// The host address of the mapped data, where the operation names one.
    pub fn host_addr(&self) -> u64 {
        match self.kind {
            OpKind::Alloc | OpKind::ToDevice | OpKind::Associate => self.src_addr,
            OpKind::FromDevice => self.dst_addr,
            _ => 0,
        }
    }
}

/// One kernel execution (the submit of a target region) on a device.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    pub device: i32,
    pub site: SiteId,
    pub region: RegionId,
    pub begin: u64,
    pub end: u64,
}
