package telemetry

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// WatchStore registers the store's metrics, all read at scrape time: the
// connection pools' statistics (go_sql_*, labelled db_name by pool), the
// hits and misses of the in-process caches, and the number of webhook
// deliveries waiting to be sent. log receives a failed queue count.
func (m *Metrics) WatchStore(st *store.Store, log *slog.Logger) {
	if m == nil {
		return
	}
	for _, p := range st.Pools() {
		m.reg.MustRegister(collectors.NewDBStatsCollector(p.DB, p.Name))
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m.reg.MustRegister(&storeCollector{st: st, log: log})
}

var (
	cacheDesc = prometheus.NewDesc(Namespace+"_cache_lookups_total",
		"Lookups in an in-process cache, by cache and result (hit: answered from memory; miss: read the database).",
		[]string{"cache", "result"}, nil)
	queueDesc = prometheus.NewDesc(Namespace+"_webhook_queue_depth",
		"Webhook deliveries waiting to be sent (due now or scheduled for a retry), in the whole database.",
		nil, nil)
)

// storeCollector reads the store's cache counters and the delivery queue
// when scraped.
type storeCollector struct {
	st  *store.Store
	log *slog.Logger
}

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- cacheDesc
	ch <- queueDesc
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.st.CacheStats() {
		ch <- prometheus.MustNewConstMetric(cacheDesc, prometheus.CounterValue, float64(s.Hits), s.Name, "hit")
		ch <- prometheus.MustNewConstMetric(cacheDesc, prometheus.CounterValue, float64(s.Misses), s.Name, "miss")
	}
	// One indexed count per scrape; a scrape waits at most a second for it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n, err := c.st.PendingDeliveries(ctx)
	if err != nil {
		c.log.Warn("metrics: could not count the webhook queue", "error", err.Error())
		ch <- prometheus.NewInvalidMetric(queueDesc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(n))
}
