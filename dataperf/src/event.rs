//! The events the analysis consumes: plain values, independent of OMPT, so the detectors can
//! be tested on synthetic streams.

/// A code location: index into the tool's table of return addresses (0: unknown).
pub type SiteId = u32;
/// A mapped variable: index into the tool's table of map-clause names (0: unknown).
pub type VarId = u32;
/// An adaptive region of the ompadapt runtime (0: none).
pub type RegionId = u32;

/// What a data operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// Device memory allocated for host data.
    Alloc,
    /// A transfer from the host to a device.
    ToDevice,
    /// A transfer from a device to the host.
    FromDevice,
    /// Between two target devices (omp_target_memcpy): no host side to hash.
    DeviceToDevice,
    /// Device memory deleted.
    Delete,
    /// Device memory associated with host data (omp_target_associate_ptr).
    Associate,
    /// An association removed (omp_target_disassociate_ptr).
    Disassociate,
}

impl OpKind {
    /// The operation's name in the report.
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

    /// Whether the operation moves bytes.
    pub fn is_transfer(self) -> bool {
        matches!(self, OpKind::ToDevice | OpKind::FromDevice | OpKind::DeviceToDevice)
    }
}

/// One completed data operation.
#[derive(Clone, Copy, Debug)]
pub struct DataOp {
    /// What the operation does.
    pub kind: OpKind,
    /// Source device (the host's number for host memory).
    pub src_dev: i32,
    /// Destination device.
    pub dst_dev: i32,
    /// Source address.
    pub src_addr: u64,
    /// Destination address.
    pub dst_addr: u64,
    /// As reported (libomptarget 19 reports 0 for deletes).
    pub bytes: u64,
    /// Where the program issued it.
    pub site: SiteId,
    /// The map clause's variable.
    pub var: VarId,
    /// The adaptive region it ran in.
    pub region: RegionId,
    /// Begin and end, ns since the tool started.
    pub begin: u64,
    /// End, ns since the tool started.
    pub end: u64,
    /// Content hash of the transferred bytes, where one side is host memory.
    pub hash: Option<u128>,
}

impl DataOp {
    /// Its duration.
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
    /// The device it ran on.
    pub device: i32,
    /// The target construct that launched it.
    pub site: SiteId,
    /// The adaptive region it ran in.
    pub region: RegionId,
    /// Begin, ns since the tool started.
    pub begin: u64,
    /// End, ns since the tool started.
    pub end: u64,
}
