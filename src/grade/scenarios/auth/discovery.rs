//! `auth/metadata-default`, `-var1`, `-var2`, `-var3`: where the resource and authorization
//! server metadata are, and whether the client finds them (the suite's
//! `src/scenarios/client/auth/discovery-metadata.ts`).

use super::{Layout, PATH_PRM, ROOT_PRM, Rules, expect_milestones, judge};
use crate::ProtocolVersion;
use crate::grade::check::Check;
use crate::log::Log;

/// The flow's milestones, each a FAILURE when no request reached it.
struct Expected {
    path_based_prm: bool,
}

impl Rules for Expected {
    fn checks_resource(&self) -> bool {
        true
    }

    fn finish(&mut self, checks: &mut Vec<Check>) {
        let slugs = [
            "prm-pathbased-requested",
            "authorization-server-metadata",
            "client-registration",
            "authorization-request",
            "token-request",
        ];
        let skip = usize::from(!self.path_based_prm);
        expect_milestones(checks, &slugs[skip..], &[]);
    }
}

fn metadata(log: &Log, version: ProtocolVersion, layout: Layout) -> Vec<Check> {
    let path_based_prm = layout.prm == PATH_PRM;
    judge(log, version, &layout, &mut Expected { path_based_prm })
}

pub(crate) fn metadata_default_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let layout = Layout {
        traps_root_prm: true,
        ..Layout::DEFAULT
    };
    metadata(log, version, layout)
}

pub(crate) fn metadata_var1_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let layout = Layout {
        as_metadata: "/.well-known/openid-configuration",
        ..Layout::DEFAULT
    };
    metadata(log, version, layout)
}

pub(crate) fn metadata_var2_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let layout = Layout {
        as_metadata: "/.well-known/oauth-authorization-server/tenant1",
        prm: ROOT_PRM,
        traps_root_as: true,
        ..Layout::DEFAULT
    };
    metadata(log, version, layout)
}

pub(crate) fn metadata_var3_checks(log: &Log, version: ProtocolVersion) -> Vec<Check> {
    let layout = Layout {
        as_metadata: "/tenant1/.well-known/openid-configuration",
        prm: "/custom/metadata/location.json",
        traps_root_as: true,
        ..Layout::DEFAULT
    };
    metadata(log, version, layout)
}
