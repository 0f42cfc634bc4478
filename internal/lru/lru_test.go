package lru

import (
	"fmt"
	"sync"
	"testing"
)

// op is one step of a table test: get (want, ok) or put a value.
type op struct {
	get    bool
	remove bool
	key    string
	value  int
	wantOK bool
}

func get(k string, want int, ok bool) op { return op{get: true, key: k, value: want, wantOK: ok} }
func put(k string, v int) op             { return op{key: k, value: v} }
func remove(k string) op                 { return op{remove: true, key: k} }

func TestCache(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		size int
		ops  []op
		len  int
	}{
		{"empty misses", 2, []op{get("a", 0, false)}, 0},
		{"put then get", 2, []op{put("a", 1), get("a", 1, true)}, 1},
		{"overwrite keeps one entry", 2, []op{put("a", 1), put("a", 2), get("a", 2, true)}, 1},
		{"full cache drops the least recently put", 2,
			[]op{put("a", 1), put("b", 2), put("c", 3), get("a", 0, false), get("b", 2, true), get("c", 3, true)}, 2},
		{"a get makes an entry recent", 2,
			[]op{put("a", 1), put("b", 2), get("a", 1, true), put("c", 3), get("b", 0, false), get("a", 1, true), get("c", 3, true)}, 2},
		{"an overwrite makes an entry recent", 2,
			[]op{put("a", 1), put("b", 2), put("a", 9), put("c", 3), get("b", 0, false), get("a", 9, true)}, 2},
		{"a full cache keeps what is in use", 3,
			[]op{put("a", 1), put("b", 2), put("c", 3), put("d", 4), put("e", 5), get("c", 3, true), get("d", 4, true), get("e", 5, true)}, 3},
		{"remove frees a slot", 2,
			[]op{put("a", 1), put("b", 2), remove("a"), put("c", 3), get("a", 0, false), get("b", 2, true), get("c", 3, true)}, 2},
		{"remove of a missing key", 2, []op{remove("x"), put("a", 1)}, 1},
		{"size below one holds one", 0, []op{put("a", 1), put("b", 2), get("a", 0, false), get("b", 2, true)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := New[string, int](tt.size)
			for i, o := range tt.ops {
				switch {
				case o.get:
					v, ok := c.Get(o.key)
					if ok != o.wantOK || v != o.value {
						t.Fatalf("step %d: Get(%q) = %d, %v; want %d, %v", i, o.key, v, ok, o.value, o.wantOK)
					}
				case o.remove:
					c.Remove(o.key)
				default:
					c.Put(o.key, o.value)
				}
			}
			if got := c.Len(); got != tt.len {
				t.Fatalf("Len() = %d, want %d", got, tt.len)
			}
		})
	}
}

func TestCache_GetOrPut(t *testing.T) {
	t.Parallel()
	c := New[string, int](2)
	if v, loaded := c.GetOrPut("a", 1); loaded || v != 1 {
		t.Fatalf("first GetOrPut = %d, %v", v, loaded)
	}
	if v, loaded := c.GetOrPut("a", 2); !loaded || v != 1 {
		t.Fatalf("second GetOrPut = %d, %v; want the first value", v, loaded)
	}
	c.Put("b", 2)
	c.GetOrPut("a", 3) // a is now the most recent
	c.Put("c", 3)
	if _, ok := c.Get("b"); ok {
		t.Fatal("GetOrPut of a present key did not mark it used")
	}
}

func TestCache_Clear(t *testing.T) {
	t.Parallel()
	c := New[int, int](4)
	for i := range 4 {
		c.Put(i, i)
	}
	c.Clear()
	if c.Len() != 0 {
		t.Fatalf("Len after Clear = %d", c.Len())
	}
	if _, ok := c.Get(1); ok {
		t.Fatal("Get after Clear found an entry")
	}
	c.Put(7, 7)
	if v, ok := c.Get(7); !ok || v != 7 {
		t.Fatal("the cache does not work after Clear")
	}
}

// TestCache_EvictionOrderAtScale fills a cache past its size and checks
// that exactly the most recent entries remain.
func TestCache_EvictionOrderAtScale(t *testing.T) {
	t.Parallel()
	const size = 100
	c := New[int, int](size)
	for i := range 1000 {
		c.Put(i, i)
	}
	for i := range 1000 {
		_, ok := c.Get(i)
		if want := i >= 900; ok != want {
			t.Fatalf("key %d present = %v, want %v", i, ok, want)
		}
	}
}

func TestCache_Concurrent(t *testing.T) {
	t.Parallel()
	c := New[int, int](64)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := (g*7 + i) % 128
				c.Put(k, k)
				if v, ok := c.Get(k); ok && v != k {
					panic(fmt.Sprintf("key %d holds %d", k, v))
				}
			}
		}()
	}
	wg.Wait()
	if c.Len() > 64 {
		t.Fatalf("Len = %d beyond the bound", c.Len())
	}
}

func TestCache_GetAndOverwriteDoNotAllocate(t *testing.T) {
	c := New[string, int](8)
	c.Put("a", 1)
	c.Put("b", 2)
	if n := testing.AllocsPerRun(1000, func() {
		c.Get("a")
		c.Get("b")
		c.Get("missing")
		c.Put("a", 3)
	}); n != 0 {
		t.Fatalf("Get/overwrite allocate %v times per run", n)
	}
	// A full cache reuses the entry it evicts.
	full := New[int, int](2)
	full.Put(1, 1)
	full.Put(2, 2)
	i := 3
	if n := testing.AllocsPerRun(1000, func() { full.Put(i, i); i++ }); n != 0 {
		t.Fatalf("an insert into a full cache allocates %v times", n)
	}
}

func BenchmarkCache_Get(b *testing.B) {
	c := New[string, int](1024)
	for i := range 1024 {
		c.Put(fmt.Sprint(i), i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.Get("512")
	}
}
