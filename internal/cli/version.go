package cli

import (
	"runtime"
	"runtime/debug"
)

// Version is the release version, set at build time with
// -ldflags "-X github.com/switchboard-gw/switchboard/internal/cli.Version=v1.2.3".
var Version = ""

func versionLine() string {
	v := Version
	if v == "" {
		v = "dev"
		if info, ok := debug.ReadBuildInfo(); ok {
			for _, s := range info.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					v = "dev-" + s.Value[:12]
				}
			}
		}
	}
	return "switchboard " + v + " (" + runtime.Version() + ")"
}
