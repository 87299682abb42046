//go:build linux

package report

// The engine tests run against a real two-shard ClickHouse cluster on
// loopback: two clickhouse-server processes, each with its own ports and
// data directory under the test's temporary directory, a remote_servers
// config naming both, one MergeTree table per shard and a Distributed
// table over them. TestEngine starts the cluster once and runs every
// engine test as a subtest. Without clickhouse-server the test skips
// (make deps installs it); under CI it fails instead.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chServer is one clickhouse-server process.
type chServer struct {
	dir       string
	tcp, http int
	cmd       *exec.Cmd
	bin       string
	args      []string
	// profile holds extra settings of the default profile (XML).
	profile string
}

// clickhouseBinary finds the server: clickhouse-server (Debian's
// package) or the clickhouse multi-tool.
func clickhouseBinary(t testing.TB) (string, []string) {
	for _, c := range []string{"clickhouse-server", "/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server"} {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("clickhouse"); err == nil {
		return p, []string{"server"}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("clickhouse-server is not installed, and CI is set: the engine tests must run (make deps installs it)")
	}
	t.Skip("clickhouse-server is not installed: skipping the engine tests (make deps installs it)")
	return "", nil
}

// freePorts returns n ports free on loopback right now.
func freePorts(t testing.TB, n int) []int {
	var ls []net.Listener
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// writeServerConfig writes a server's config.xml and users.xml (the 2018
// format of ClickHouse 18.16: a <yandex> root).
func writeServerConfig(t testing.TB, s *chServer, interserver int, shards []*chServer) {
	for _, sub := range []string{"data", "tmp", "user_files"} {
		if err := os.MkdirAll(filepath.Join(s.dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	profile := s.profile
	if !strings.Contains(profile, "<max_memory_usage>") {
		profile += "<max_memory_usage>2000000000</max_memory_usage>"
	}
	// reader is an account with readonly = 1: it may read, not create
	// a temporary table (readerURL).
	users := `<yandex>
 <profiles><default>` + profile + `</default><reader><readonly>1</readonly></reader></profiles>
 <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default>
 <reader><password></password><networks><ip>127.0.0.1</ip></networks><profile>reader</profile><quota>default</quota></reader></users>
 <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`
	var remote strings.Builder
	for _, sh := range shards {
		fmt.Fprintf(&remote, "<shard><replica><host>127.0.0.1</host><port>%d</port></replica></shard>", sh.tcp)
	}
	config := fmt.Sprintf(`<yandex>
 <logger><level>warning</level><log>%[1]s/server.log</log><errorlog>%[1]s/server.err.log</errorlog><console>0</console></logger>
 <http_port>%[2]d</http_port><tcp_port>%[3]d</tcp_port><interserver_http_port>%[4]d</interserver_http_port>
 <listen_host>127.0.0.1</listen_host>
 <path>%[1]s/data/</path><tmp_path>%[1]s/tmp/</tmp_path><user_files_path>%[1]s/user_files/</user_files_path>
 <users_config>%[1]s/users.xml</users_config>
 <default_profile>default</default_profile><default_database>default</default_database>
 <mark_cache_size>67108864</mark_cache_size><uncompressed_cache_size>67108864</uncompressed_cache_size>
 <remote_servers><two_shards>%[5]s</two_shards></remote_servers>
 <query_log><database>system</database><table>query_log</table><flush_interval_milliseconds>1000</flush_interval_milliseconds></query_log>
</yandex>
`, s.dir, s.http, s.tcp, interserver, remote.String())
	for name, text := range map[string]string{"users.xml": users, "config.xml": config} {
		if err := os.WriteFile(filepath.Join(s.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// start starts the server (killed with the test process: Pdeathsig) and
// waits until it answers /ping, polling.
func (s *chServer) start(t testing.TB) {
	args := append(append([]string{}, s.args...), "--config-file="+filepath.Join(s.dir, "config.xml"))
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.Dir = s.dir
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	out, err := os.Create(filepath.Join(s.dir, "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stdout, s.cmd.Stderr = out, out
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", s.bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait(); out.Close() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/ping", s.http))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				go func() { <-exited }()
				return
			}
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, "server.err.log"))
			t.Fatalf("clickhouse-server exited (%v):\n%s", err, log)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("clickhouse-server on port %d did not answer within 60 s", s.http)
		}
	}
}

// stop kills the server.
func (s *chServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
}

// exec runs a statement through the HTTP interface (test setup only;
// evalbook itself speaks the native protocol).
func (s *chServer) exec(t testing.TB, query string, body []byte) string {
	t.Helper()
	u := fmt.Sprintf("http://127.0.0.1:%d/?query=%s", s.http, urlQuery(query))
	var r io.Reader = bytes.NewReader(body)
	if body == nil {
		u = fmt.Sprintf("http://127.0.0.1:%d/", s.http)
		r = strings.NewReader(query)
	}
	resp, err := http.Post(u, "text/plain", r)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", query, b)
	}
	return string(b)
}

func urlQuery(q string) string {
	var b strings.Builder
	for _, c := range []byte(q) {
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// chCluster is two shards; queries go to shards[0], which holds the
// Distributed table.
type chCluster struct {
	shards []*chServer
}

// startCluster starts two servers under dir with a remote_servers config
// naming both.
func startCluster(t testing.TB, dir, profile string) *chCluster {
	bin, args := clickhouseBinary(t)
	ports := freePorts(t, 6)
	c := &chCluster{}
	for i := 0; i < 2; i++ {
		c.shards = append(c.shards, &chServer{dir: filepath.Join(dir, fmt.Sprintf("shard%d", i+1)), http: ports[3*i], tcp: ports[3*i+1], bin: bin, args: args, profile: profile})
	}
	for i, s := range c.shards {
		writeServerConfig(t, s, ports[3*i+2], c.shards)
	}
	for _, s := range c.shards {
		s.start(t)
	}
	t.Cleanup(func() {
		for _, s := range c.shards {
			s.stop()
		}
	})
	return c
}

// url is the engine URL of the cluster's query node.
func (c *chCluster) url() string {
	return fmt.Sprintf("clickhouse://127.0.0.1:%d/default", c.shards[0].tcp)
}

// readerURL is the engine URL of the cluster's query node for the
// account with readonly = 1.
func (c *chCluster) readerURL() string {
	return fmt.Sprintf("clickhouse://reader@127.0.0.1:%d/default", c.shards[0].tcp)
}

// unitValue is one per-unit value to load.
type unitValue struct {
	dataset, method, unit, metric string
	value                         float64 // NaN: NULL
}

// createUnitsTable makes the local MergeTree table on every shard and
// the Distributed table `name` over them on the query node.
func (c *chCluster) createUnitsTable(t testing.TB, name, valueType string) {
	for _, s := range c.shards {
		s.exec(t, "DROP TABLE IF EXISTS "+name+"_local", nil)
		s.exec(t, fmt.Sprintf("CREATE TABLE %s_local (dataset String, method String, unit String, metric String, value %s) ENGINE = MergeTree ORDER BY (dataset, metric, unit)", name, valueType), nil)
	}
	c.shards[0].exec(t, "DROP TABLE IF EXISTS "+name, nil)
	c.shards[0].exec(t, fmt.Sprintf("CREATE TABLE %[1]s AS %[1]s_local ENGINE = Distributed(two_shards, default, %[1]s_local)", name), nil)
}

// load inserts values into the shards' local tables, each value on the
// shard its (method, unit) hashes to, so that a unit's treatment and
// control values often lie on different shards. RowBinary keeps every
// float64 bit for bit.
func (c *chCluster) load(t testing.TB, name string, values []unitValue) {
	bufs := make([]bytes.Buffer, len(c.shards))
	str := func(b *bytes.Buffer, s string) {
		var l [binary.MaxVarintLen64]byte
		b.Write(l[:binary.PutUvarint(l[:], uint64(len(s)))])
		b.WriteString(s)
	}
	for _, v := range values {
		h := 0
		for _, ch := range v.method + "/" + v.unit {
			h = h*31 + int(ch)
		}
		b := &bufs[(h&0x7fffffff)%len(c.shards)]
		str(b, v.dataset)
		str(b, v.method)
		str(b, v.unit)
		str(b, v.metric)
		if math.IsNaN(v.value) {
			b.WriteByte(1)
			continue
		}
		b.WriteByte(0)
		var f [8]byte
		binary.LittleEndian.PutUint64(f[:], math.Float64bits(v.value))
		b.Write(f[:])
	}
	for i, s := range c.shards {
		s.exec(t, "INSERT INTO "+name+"_local FORMAT RowBinary", bufs[i].Bytes())
	}
}

// demoUnitValues reads the demo's per-user files (data/units/<method>_<dataset>.csv:
// user,ndcg@10,rmse) into values; an empty cell is NULL.
func demoUnitValues(t testing.TB, dir string) []unitValue {
	files, err := filepath.Glob(filepath.Join(dir, "data", "units", "*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no demo units files in %s (%v)", dir, err)
	}
	var out []unitValue
	for _, f := range files {
		method, dataset, ok := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".csv"), "_")
		if !ok {
			t.Fatalf("%s: not <method>_<dataset>.csv", f)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		header := strings.Split(lines[0], ",")
		for _, line := range lines[1:] {
			cells := strings.Split(line, ",")
			for j := 1; j < len(header); j++ {
				v := math.NaN()
				if cells[j] != "" {
					if v, err = strconv.ParseFloat(cells[j], 64); err != nil {
						t.Fatal(err)
					}
				}
				out = append(out, unitValue{dataset: dataset, method: method, unit: cells[0], metric: header[j], value: v})
			}
		}
	}
	return out
}

// TestEngine starts the cluster once and runs the engine tests. It runs
// beside the package's other tests (much of its time is spent waiting
// on the servers), so it shares no state with them but the servers it
// started.
func TestEngine(t *testing.T) {
	t.Parallel()
	c := startCluster(t, t.TempDir(), "")
	t.Run("DemoEqualsFiles", func(t *testing.T) { testEngineDemoEqualsFiles(t, c) })
	t.Run("Faults", func(t *testing.T) { testEngineFaults(t, c) })
	t.Run("Cache", func(t *testing.T) { testEngineCache(t, c) })
	t.Run("Logs", func(t *testing.T) { testEngineLogs(t, c) })
	t.Run("Trim", func(t *testing.T) { testEngineTrim(t, c) })
	t.Run("Paths", func(t *testing.T) { testEnginePaths(t, c) })
}
