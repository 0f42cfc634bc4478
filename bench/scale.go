package main

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// The scale run (issue 24 #4): execute and MCP tools/call on a database
// holding many accounts and sessions must cost what they cost on a small
// one. Each size gets its own serve process and database, seeded, and
// its passes interleave with the small stack's (the main one), so that a
// shared machine's drift falls on both alike.

// scaleSizes are the stored connections (and as many sessions) per stage.
var scaleSizes = []int{1000, 100_000}

// scalePaths are the paths compared.
var scalePaths = []string{pathExecute, pathSessionMCP, pathEndpointMCP}

// ScaleStage is one size compared with the small database.
type ScaleStage struct {
	Connections int          `json:"connections"`
	Sessions    int          `json:"sessions"`
	SeedSeconds float64      `json:"seedSeconds"`
	Rows        []ScaleRow   `json:"rows"`
	Small       []Result     `json:"small"`
	Large       []Result     `json:"large"`
	Memory      MemoryFigure `json:"memory"`
}

// ScaleRow is one path at one concurrency: p50 on the small and the
// large database and their ratio (budget: at most 1.10).
type ScaleRow struct {
	Path        string  `json:"path"`
	Concurrency int     `json:"concurrency"`
	SmallP50ms  float64 `json:"smallP50Ms"`
	LargeP50ms  float64 `json:"largeP50Ms"`
	Ratio       float64 `json:"ratio"`
}

func (fx *fixture) runScale(small *stack, m measurer) ([]ScaleStage, error) {
	ctx := context.Background()
	var stages []ScaleStage
	for _, size := range scaleSizes {
		large, err := fx.newStack("scale-"+strconv.Itoa(size), stackOptions{})
		if err != nil {
			return nil, err
		}
		start := time.Now()
		// The bench user's account and session are already there.
		if err := large.seedConnections(ctx, size-1); err != nil {
			return nil, fmt.Errorf("seed %d connections: %w", size, err)
		}
		if err := large.seedSessions(ctx, size-1); err != nil {
			return nil, fmt.Errorf("seed %d sessions: %w", size, err)
		}
		if err := large.analyze(ctx); err != nil {
			return nil, err
		}
		st := ScaleStage{SeedSeconds: time.Since(start).Seconds()}
		if st.Connections, err = large.count(ctx, "connections"); err != nil {
			return nil, err
		}
		if st.Sessions, err = large.count(ctx, "sessions"); err != nil {
			return nil, err
		}
		fmt.Printf("scale: %d connections and %d sessions seeded in %.1fs\n", st.Connections, st.Sessions, st.SeedSeconds)

		var paths []path
		for _, s := range []*stack{small, large} {
			for _, p := range s.paths() {
				for _, name := range scalePaths {
					if p.name == name {
						p.name = s.name + "\x00" + p.name
						paths = append(paths, p)
					}
				}
			}
		}
		large.srv.sampleRSS()
		rs := m.run(paths)
		large.srv.stopSampler()
		st.Memory = large.memoryFigure()
		for _, r := range rs {
			stackName, name := splitName(r.Path)
			r.Path = name
			if stackName == small.name {
				st.Small = append(st.Small, r)
			} else {
				st.Large = append(st.Large, r)
			}
		}
		for _, name := range scalePaths {
			for _, c := range m.levels {
				a, _ := find(st.Small, name, c)
				b, _ := find(st.Large, name, c)
				row := ScaleRow{Path: name, Concurrency: c, SmallP50ms: a.P50ms, LargeP50ms: b.P50ms}
				if a.P50ms > 0 {
					row.Ratio = b.P50ms / a.P50ms
				}
				st.Rows = append(st.Rows, row)
			}
		}
		large.srv.stop()
		stages = append(stages, st)
	}
	return stages, nil
}

func splitName(s string) (string, string) {
	for i := range len(s) {
		if s[i] == 0 {
			return s[:i], s[i+1:]
		}
	}
	return "", s
}

func scaleBudgets(stages []ScaleStage) []Budget {
	var out []Budget
	for _, st := range stages {
		for _, r := range st.Rows {
			out = append(out, atMost(fmt.Sprintf("scale %dk: %s p50 over small, c=%d", st.Connections/1000, r.Path, r.Concurrency), r.Ratio, 1.10, "x"))
		}
	}
	return out
}
