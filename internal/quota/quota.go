// Package quota limits how many tool calls a project, an end user, a
// connector or a tool makes per minute, hour or day (docs/quotas.md). Limits
// are data (store.Quota); every replica counts in the same database rows
// (fixed windows, one upsert per call on the store's counting pool), so a
// window's count never passes its limit however many replicas serve. A
// project without quotas costs a cache lookup per call and no query: the
// quotas are cached per project, keyed by its tools_version, which every
// change to them moves.
package quota

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/lru"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// The windows a quota counts in, by name and length in seconds.
var windows = map[string]int{"minute": 60, "hour": 3600, "day": 86400}

// WindowName returns the name of a period in seconds ("hour"), or its
// number of seconds for a period that has no name.
func WindowName(period int) string {
	for name, p := range windows {
		if p == period {
			return name
		}
	}
	return strconv.Itoa(period) + "s"
}

// maxCachedProjects bounds the cache of projects' quotas.
const maxCachedProjects = 4096

// Service admits or refuses calls by the quotas of their project. A nil
// *Service admits every call.
type Service struct {
	store *store.Store
	now   func() time.Time
	cache *lru.Cache[string, cachedQuotas]
}

type cachedQuotas struct {
	version int64
	quotas  []store.Quota
}

// New returns a Service; now is the clock (nil means time.Now).
func New(st *store.Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, now: now, cache: lru.New[string, cachedQuotas](maxCachedProjects)}
}

// Call is what a call is counted as: the end user it runs for, its
// connector and its tool (empty for a raw proxy request).
type Call struct {
	UserID      string
	ConnectorID string
	ToolID      string
}

// quotas returns the project's quotas as of t's tools_version, from the
// cache when it holds that version.
func (s *Service) quotas(ctx context.Context, t tenant.Tenant) ([]store.Quota, error) {
	if c, ok := s.cache.Get(t.ProjectID); ok && c.version == t.ToolsVersion {
		return c.quotas, nil
	}
	qs, err := s.store.ListQuotas(ctx, t.ProjectID)
	if err != nil {
		return nil, err
	}
	if c, ok := s.cache.Get(t.ProjectID); !ok || c.version <= t.ToolsVersion {
		s.cache.Put(t.ProjectID, cachedQuotas{version: t.ToolsVersion, quotas: qs})
	}
	return qs, nil
}

// Matches reports whether a quota counts c.
func Matches(q store.Quota, c Call) bool {
	if q.UserID != "" && q.UserID != c.UserID {
		return false
	}
	if q.ConnectorID != "" && q.ConnectorID != c.ConnectorID {
		return false
	}
	switch {
	case q.ToolID == "":
		return true
	case c.ToolID == "":
		return false // a raw proxy request is no tool
	case strings.HasSuffix(q.ToolID, "*"):
		return strings.HasPrefix(c.ToolID, strings.TrimSuffix(q.ToolID, "*"))
	default:
		return q.ToolID == c.ToolID
	}
}

// Admit counts c against every quota of t's project that matches it, and
// answers RATE_LIMITED (429, with Retry-After) when one of them has no call
// left in its window; a refused call counts against none. A project
// without quotas answers at once, with no query.
func (s *Service) Admit(ctx context.Context, t tenant.Tenant, c Call) error {
	if s == nil {
		return nil
	}
	qs, err := s.quotas(ctx, t)
	if err != nil || len(qs) == 0 {
		return err
	}
	var hits []store.QuotaHit
	var matched []store.Quota
	now := s.now()
	for _, q := range qs {
		if !Matches(q, c) {
			continue
		}
		subject := ""
		if q.PerUser {
			subject = c.UserID
		}
		start, end := window(now, q.Period)
		hits = append(hits, store.QuotaHit{QuotaID: q.ID, Subject: subject, Period: q.Period,
			WindowStart: start, WindowEnd: end, Limit: q.Limit})
		matched = append(matched, q)
	}
	if len(hits) == 0 {
		return nil
	}
	// One order for every call, so concurrent multi-row upserts lock
	// their rows alike and never wait on each other in a cycle.
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(hits[a].QuotaID, hits[b].QuotaID) })
	sorted := make([]store.QuotaHit, len(hits))
	for i, j := range order {
		sorted[i] = hits[j]
	}
	refused, err := s.store.CountQuotaCalls(ctx, sorted)
	if err != nil || len(refused) == 0 {
		return err
	}
	// The call may run again once every refusing window has ended.
	var worst store.Quota
	var wait int64
	for _, i := range refused {
		q := matched[order[i]]
		if w := retryAfter(now, sorted[i].WindowEnd); w > wait {
			wait, worst = w, q
		}
	}
	e := apierr.New(apierr.RateLimited, "%s; try again in %d seconds", Describe(worst), wait)
	e.RetryAfter = strconv.FormatInt(wait, 10)
	return e
}

// window returns the fixed window of period seconds that now falls in, as
// Unix milliseconds [start, end). Windows are aligned to the Unix epoch, so
// every replica computes the same ones (days begin at 00:00 UTC).
func window(now time.Time, period int) (start, end int64) {
	p := int64(period) * 1000
	ms := now.UnixMilli()
	start = ms - ms%p
	return start, start + p
}

// retryAfter is the whole seconds from now until end, at least 1.
func retryAfter(now time.Time, end int64) int64 {
	ms := end - now.UnixMilli()
	return max(1, (ms+999)/1000)
}

// Describe says in words what a quota limits, for refusals and the CLI:
// "the limit of 100 calls per hour for each user on github".
func Describe(q store.Quota) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the limit of %d calls per %s", q.Limit, WindowName(q.Period))
	switch {
	case q.UserID != "":
		fmt.Fprintf(&b, " for user %s", q.UserID)
	case q.PerUser:
		b.WriteString(" for each user")
	default:
		b.WriteString(" for the project")
	}
	switch {
	case q.ToolID != "":
		fmt.Fprintf(&b, " on %s", q.ToolID)
	case q.ConnectorID != "":
		fmt.Fprintf(&b, " on %s", q.ConnectorID)
	}
	b.WriteString(" is reached")
	return b.String()
}
