// Command kapi runs a real Kubernetes API server for workload-lens' live
// tests: the kube-apiserver of k8s.io/kubernetes (cmd/kube-apiserver/app) and
// an etcd embedded in the same process (go.etcd.io/etcd/server/v3/embed).
// Everything listens on 127.0.0.1. There is no kubelet, scheduler or
// controller-manager: objects are stored and served as written, and nothing
// reconciles them (tests set pod and workload status themselves through the
// status subresources).
//
//	kapi -dir DIR [-keep] [-port N] [-- extra kube-apiserver flags]
//
// Files written under DIR (see README.md): kubeconfig (admin, system:masters),
// kubeconfig-viewer (user lens-viewer, group lens-viewers, no rights until a
// test grants them), server (the URL), ca.crt, tokens.csv, the serving and
// service-account keys, etcd/ (data), and ready once /readyz answers ok.
// -keep starts again on the DIR of an earlier run: its certificates, keys,
// tokens, kubeconfigs and port are reused instead of made anew, so that a
// client of the earlier run reconnects to the same URL with the same
// credentials (etcd's data in DIR are kept either way). -keep -port N
// listens on N instead, with the same state and credentials: a run the
// earlier run's clients do not reach (a test changes objects behind a
// watching client's back that way).
// SIGTERM or SIGINT stops the server and etcd; the exit code is 0.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/embed"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

// The two users of the static token file.
const (
	adminUser   = "lens-admin"
	adminGroup  = "system:masters"
	viewerUser  = "lens-viewer"
	viewerGroup = "lens-viewers"
)

type server struct {
	dir     string // absolute state directory
	port    int
	caPEM   []byte
	tokens  map[string]string // user -> token
	started time.Time
}

func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "kapi: "+format+"\n", args...)
	os.Exit(1)
}

func (s *server) path(name string) string { return filepath.Join(s.dir, name) }

func (s *server) write(name string, data []byte) {
	if err := os.WriteFile(s.path(name), data, 0o600); err != nil {
		fatal("writing %s: %v", name, err)
	}
}

// loopbackPort asks the kernel for a port that is free right now.
func loopbackPort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal("no free port on 127.0.0.1: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		fatal("random: %v", err)
	}
	return hex.EncodeToString(b)
}

func pemOf(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

// ecKey makes a P-256 key and writes it (PEM) as name.
func (s *server) ecKey(name string) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fatal("generating %s: %v", name, err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		fatal("encoding %s: %v", name, err)
	}
	s.write(name, pemOf("EC PRIVATE KEY", der))
	return key
}

// pki writes a throwaway CA (ca.crt), the serving certificate it signs for
// 127.0.0.1 and localhost (serving.crt/.key), and the service-account token
// key pair (sa.key/sa.pub). New on every start.
func (s *server) pki() {
	notBefore := time.Now().Add(-time.Hour)
	notAfter := notBefore.Add(5 * 365 * 24 * time.Hour)

	caKey := s.ecKey("ca.key")
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "workload-lens test CA"},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, caKey.Public(), caKey)
	if err != nil {
		fatal("CA certificate: %v", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		fatal("CA certificate: %v", err)
	}
	s.caPEM = pemOf("CERTIFICATE", caDER)
	s.write("ca.crt", s.caPEM)

	servingKey := s.ecKey("serving.key")
	servingTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost", "kubernetes.default.svc"},
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, servingTemplate, caCert, servingKey.Public(), caKey)
	if err != nil {
		fatal("serving certificate: %v", err)
	}
	s.write("serving.crt", pemOf("CERTIFICATE", servingDER))

	saKey := s.ecKey("sa.key")
	saPub, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		fatal("service-account public key: %v", err)
	}
	s.write("sa.pub", pemOf("PUBLIC KEY", saPub))
}

// credentials writes tokens.csv (the apiserver's static token file:
// token,user,uid,"groups") and one kubeconfig per user.
func (s *server) credentials() {
	s.tokens = map[string]string{adminUser: randomHex(24), viewerUser: randomHex(24)}
	var csv strings.Builder
	fmt.Fprintf(&csv, "%s,%s,%s,%q\n", s.tokens[adminUser], adminUser, adminUser, adminGroup)
	fmt.Fprintf(&csv, "%s,%s,%s,%q\n", s.tokens[viewerUser], viewerUser, viewerUser, viewerGroup)
	s.write("tokens.csv", []byte(csv.String()))

	url := fmt.Sprintf("https://127.0.0.1:%d", s.port)
	s.write("server", []byte(url+"\n"))
	s.write("kubeconfig", s.kubeconfig(url, adminUser))
	s.write("kubeconfig-viewer", s.kubeconfig(url, viewerUser))
}

// reuse reads back what pki and credentials wrote on an earlier run on the
// same DIR (for -keep): the CA, the tokens and, unless -port gives another,
// the port of DIR/server. Anything missing or malformed is fatal: -keep
// never makes new credentials (nor rewrites the kubeconfigs and DIR/server,
// which keep naming the earlier port when -port gives another: a run that
// clients of the earlier one do not reach).
func (s *server) reuse() {
	for _, name := range []string{"ca.crt", "serving.crt", "serving.key", "sa.key", "sa.pub", "tokens.csv", "server", "kubeconfig", "kubeconfig-viewer"} {
		if _, err := os.Stat(s.path(name)); err != nil {
			fatal("-keep: %s is missing (start without -keep first): %v", name, err)
		}
	}
	var err error
	if s.caPEM, err = os.ReadFile(s.path("ca.crt")); err != nil {
		fatal("-keep: %v", err)
	}
	csv, err := os.ReadFile(s.path("tokens.csv"))
	if err != nil {
		fatal("-keep: %v", err)
	}
	s.tokens = map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(csv)), "\n") {
		fields := strings.SplitN(line, ",", 3)
		if len(fields) == 3 {
			s.tokens[fields[1]] = fields[0]
		}
	}
	if s.tokens[adminUser] == "" {
		fatal("-keep: tokens.csv has no token for %s", adminUser)
	}
	raw, err := os.ReadFile(s.path("server"))
	if err != nil {
		fatal("-keep: %v", err)
	}
	u, err := url.Parse(strings.TrimSpace(string(raw)))
	if err != nil || u.Hostname() != "127.0.0.1" {
		fatal("-keep: DIR/server is not an https://127.0.0.1:PORT URL: %q", raw)
	}
	var earlier int
	if _, err := fmt.Sscanf(u.Port(), "%d", &earlier); err != nil || earlier <= 0 {
		fatal("-keep: no port in DIR/server: %q", raw)
	}
	if s.port == 0 {
		s.port = earlier
	}
}

func (s *server) kubeconfig(url, user string) []byte {
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kapi
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: %s
  user:
    token: %s
contexts:
- name: %s@kapi
  context:
    cluster: kapi
    user: %s
    namespace: default
current-context: %s@kapi
`, url, base64.StdEncoding.EncodeToString(s.caPEM), user, s.tokens[user], user, user, user))
}

// etcd starts the embedded etcd on two free loopback ports and returns it
// with its client URL.
func (s *server) etcd() (*embed.Etcd, string) {
	cfg := embed.NewConfig()
	cfg.Name = "kapi"
	cfg.Dir = s.path("etcd")
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", loopbackPort())}
	peer := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", loopbackPort())}
	cfg.ListenClientUrls = []url.URL{client}
	cfg.AdvertiseClientUrls = []url.URL{client}
	cfg.ListenPeerUrls = []url.URL{peer}
	cfg.AdvertisePeerUrls = []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = true // test data: durability does not matter, speed does
	cfg.LogLevel = "error"
	if level := os.Getenv("KAPI_ETCD_LOG_LEVEL"); level != "" {
		cfg.LogLevel = level
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fatal("starting etcd: %v", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		fatal("etcd not ready after 60 s (another kapi on the same -dir holds its lock? KAPI_ETCD_LOG_LEVEL=info says)")
	}
	return e, client.String()
}

// announceReady polls /readyz with the admin token until it answers 200,
// then touches DIR/ready.
func (s *server) announceReady() {
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(s.caPEM)
	httpc := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}},
	}
	readyz := fmt.Sprintf("https://127.0.0.1:%d/readyz", s.port)
	for {
		req, _ := http.NewRequest(http.MethodGet, readyz, nil)
		req.Header.Set("Authorization", "Bearer "+s.tokens[adminUser])
		resp, err := httpc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				s.write("ready", nil)
				fmt.Fprintf(os.Stderr, "kapi: ready after %.1f s at https://127.0.0.1:%d (kubeconfig %s)\n",
					time.Since(s.started).Seconds(), s.port, s.path("kubeconfig"))
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *server) apiserverArgs(etcdURL string) []string {
	return []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", s.port),
		"--cert-dir=" + s.path("certs"),
		"--tls-cert-file=" + s.path("serving.crt"),
		"--tls-private-key-file=" + s.path("serving.key"),
		"--client-ca-file=" + s.path("ca.crt"),
		"--token-auth-file=" + s.path("tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + s.path("sa.pub"),
		"--service-account-signing-key-file=" + s.path("sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		// The advertise address is loopback: nothing may reconcile the
		// "kubernetes" Service's endpoints to it.
		"--endpoint-reconciler-type=none",
		// No controller-manager creates the "default" ServiceAccount, so this
		// admission plugin would reject every pod.
		"--disable-admission-plugins=ServiceAccount",
		"--profiling=false",
		// Stop within seconds under open watches (the metrics stage stops
		// the server under a watching exporter): without it, the HTTP
		// server's shutdown waits for the watch streams up to the request
		// timeout (60 s; stop.sh gives up after 20). With it, the server
		// drains the requests in flight (answering new ones 429 with
		// Retry-After meanwhile), then closes what is left after 2 s.
		"--shutdown-send-retry-after",
	}
}

func main() {
	dir := flag.String("dir", "kapi-state", "state directory (certificates, kubeconfigs, etcd data)")
	port := flag.Int("port", 0, "secure port on 127.0.0.1; 0 picks a free one")
	etcdURL := flag.String("etcd", "", "an external etcd's client URL instead of the embedded etcd")
	keep := flag.Bool("keep", false, "start again on the DIR of an earlier run: reuse its certificates, keys, tokens, kubeconfigs and (unless -port is given) port")
	flag.Parse()

	s := &server{port: *port, started: time.Now()}
	var err error
	if s.dir, err = filepath.Abs(*dir); err != nil {
		fatal("%v", err)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		fatal("%v", err)
	}
	os.Remove(s.path("ready"))
	if *keep {
		s.reuse()
	} else {
		if s.port == 0 {
			s.port = loopbackPort()
		}
		s.pki()
		s.credentials()
	}

	var e *embed.Etcd
	if *etcdURL == "" {
		e, *etcdURL = s.etcd()
	}

	go s.announceReady()

	// The command installs its own SIGTERM/SIGINT handler and returns once
	// the server has shut down.
	cmd := app.NewAPIServerCommand()
	cmd.SetArgs(append(s.apiserverArgs(*etcdURL), flag.Args()...))
	code := cli.Run(cmd)
	if e != nil {
		e.Close()
	}
	os.Remove(s.path("ready"))
	os.Exit(code)
}
