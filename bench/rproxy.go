package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// The bare reverse proxy runs in a process of its own, as Switchboard does:
// in the bench process it would share the clients' scheduler and caches
// and skip the cross-process hop that serve pays, and the ratio would
// measure the process boundary rather than the gateway.
const rproxyEnv = "SWITCHBOARD_BENCH_RPROXY" // target URL, CA file and idle connections, tab-separated

// bareProxy is the child process.
type bareProxy struct {
	cmd *exec.Cmd
	URL string
}

// startBareProxy starts this binary as a bare httputil.ReverseProxy in front
// of target, trusting the certificate in caFile.
func startBareProxy(target, caFile string, conns int) (*bareProxy, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), rproxyEnv+"="+target+"\t"+caFile+"\t"+strconv.Itoa(conns))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("bare reverse proxy did not start: %v", err)
	}
	return &bareProxy{cmd: cmd, URL: strings.TrimSpace(line)}, nil
}

func (b *bareProxy) Close() {
	_ = b.cmd.Process.Kill()
	_ = b.cmd.Wait()
}

// runBareProxy is the child's main: it prints its URL on one line and
// serves until it is killed.
func runBareProxy(spec string) int {
	parts := strings.Split(spec, "\t")
	if len(parts) != 3 {
		fmt.Fprintln(os.Stderr, "bench: bad", rproxyEnv)
		return 2
	}
	target, err := url.Parse(parts[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 2
	}
	pem, err := os.ReadFile(parts[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 2
	}
	conns, _ := strconv.Atoi(parts[2])
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: conns}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	fmt.Printf("http://%s\n", ln.Addr())
	if err := http.Serve(ln, rp); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	return 0
}
