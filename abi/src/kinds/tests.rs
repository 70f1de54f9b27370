use super::*;

#[test]
fn names_decode() {
    assert_eq!(decode("thread_limit=128"), Some(Kind::ThreadLimit(128)));
    assert_eq!(decode("coschedule=0.25"), Some(Kind::Coschedule(0.25)));
    assert_eq!(decode("schedule=dynamic,16"), Some(Kind::Schedule(2, 16)));
    assert_eq!(decode("schedule=guided"), Some(Kind::Schedule(3, 0)));
    assert_eq!(decode("host"), None);
    assert_eq!(decode("thread_limit=0"), None);
    assert_eq!(decode("threads=0.25"), Some(Kind::Threads(0.25)));
    assert_eq!(decode("threads=1"), Some(Kind::Threads(1.0)));
    assert_eq!(decode("threads=0"), None);
    assert_eq!(decode("threads=1.5"), None);
    assert_eq!(decode("schedule=dynamic,0"), None);
}

#[test]
fn every_name_decodes_to_its_kind() {
    let kinds = [
        Kind::Cpu,
        Kind::Gpu,
        Kind::Serial,
        Kind::ThreadLimit(64),
        Kind::NumTeams(1024),
        Kind::NumThreads(3),
        Kind::Coschedule(0.3),
        Kind::Threads(0.125),
        Kind::Threads(1.0),
        Kind::Schedule(1, 0),
        Kind::Schedule(4, 8),
    ];
    for k in kinds {
        assert_eq!(decode(&k.name()), Some(k), "{k}");
    }
    assert_eq!(Kind::Threads(1.0).name(), "threads=1");
    assert_eq!(Kind::Schedule(2, 16).name(), "schedule=dynamic,16");
}

#[test]
fn lists_expand_as_the_plugin_writes_them() {
    let names = |t: &str| parse_list(t).unwrap().iter().map(Kind::name).collect::<Vec<_>>().join(",");
    assert_eq!(names(DEFAULT_HOST_KINDS), "serial,threads=0.125,threads=0.25,threads=0.5,threads=1");
    assert_eq!(names("thread_limit[64:256:64],cpu"), "thread_limit=64,thread_limit=128,thread_limit=192,thread_limit=256,cpu");
    assert_eq!(names("coschedule[0:1:0.1]").split(',').nth(3), Some("coschedule=0.3"));
    assert_eq!(names("schedule(dynamic, [1:4:3]),schedule(static)"), "schedule=dynamic,1,schedule=dynamic,4,schedule=static");
    assert_eq!(names("default"), "cpu,gpu,serial,threads=0.125,threads=0.25,threads=0.5,threads=1");
    assert_eq!(names("cpu,cpu,gpu"), "cpu,gpu");
}

#[test]
fn bad_lists_say_why() {
    let err = |t: &str| parse_list(t).unwrap_err();
    assert!(err("serail").contains("did you mean 'serial'"), "{}", err("serail"));
    assert!(err("threads[0:1:0.5]").contains("above 0"));
    assert!(err("thread_limit[64:32:1]").contains("empty"));
    assert!(err("num_threads[1:100000:1]").contains("at most"));
    assert!(err("cpu,,gpu").contains("empty item"));
    assert!(err("threads[0.5:1:0.5").contains("unclosed"));
    assert!(err("").contains("empty"));
}

#[test]
fn team_sizes_follow_the_formula() {
    // the as-written team: the program's
    assert_eq!(team_size(0, 0.0, 16), 16);
    assert_eq!(team_size(0, 0.0, 4), 4);
    // absolute, whatever the program asks
    assert_eq!(team_size(3, 0.0, 8), 3);
    // shares of the program's team (its clause's, not the machine's), rounded to nearest, at
    // least one: threads=1 is the clause's team even above the machine's
    assert_eq!(team_size(0, 0.125, 2), 1);
    assert_eq!(team_size(0, 0.5, 7), 4);
    assert_eq!(team_size(0, 1.0, 4), 4);
    assert_eq!(team_size(0, 1.0, 16), 16);
    assert_eq!(team_size(0, 0.25, 16), 4);
    assert_eq!(Kind::Threads(0.25).team_arguments(), (0, 0.25));
    assert_eq!(Kind::NumThreads(6).team_arguments(), (6, 0.0));
}
