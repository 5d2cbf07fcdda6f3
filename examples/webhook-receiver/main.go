// Command webhook-receiver is a small HTTPS endpoint for hosted API webhook
// deliveries: it verifies each delivery with the API key from PFC_API_KEY,
// drops duplicates, and prints the job.
//
//	PFC_API_KEY=... go run ./examples/webhook-receiver -addr :8443
//
// Without -cert and -key it serves an in-memory self-signed certificate,
// which is only good for local testing: the service needs a certificate it
// trusts. -cert-out writes that certificate (PEM) to a file, for the mock
// to trust: with the receiver running as
//
//	PFC_API_KEY=test-api-key go run ./examples/webhook-receiver -addr 127.0.0.1:8443 -cert-out /tmp/receiver.pem
//
// start the mock with
//
//	go run ./mockserver/cmd/pfc-mockserver -webhook-ca /tmp/receiver.pem -time-scale 0.001
//
// and give /pfc the webhookUrl https://localhost:8443/.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/pfcsdk/pfc-go/webhook"
)

func main() {
	addr := flag.String("addr", ":8443", "listen address")
	certFile := flag.String("cert", "", "TLS certificate file (PEM)")
	keyFile := flag.String("key", "", "TLS private key file (PEM)")
	certOut := flag.String("cert-out", "", "without -cert/-key: write the self-signed certificate (PEM) to this file, for the sender to trust")
	flag.Parse()
	if err := run(*addr, *certFile, *keyFile, *certOut); err != nil {
		log.Fatal(err)
	}
}

func run(addr, certFile, keyFile, certOut string) error {
	apiKey := os.Getenv("PFC_API_KEY")
	if apiKey == "" {
		return errors.New("PFC_API_KEY is not set: it is the secret that signs deliveries")
	}
	if (certFile == "") != (keyFile == "") {
		return errors.New("give both -cert and -key, or neither")
	}
	if certOut != "" && certFile != "" {
		return errors.New("-cert-out writes the self-signed certificate: it goes without -cert and -key")
	}
	verifier, err := webhook.NewVerifierKey(apiKey)
	if err != nil {
		return err
	}
	receive := webhook.Middleware(verifier,
		webhook.WithIdempotency(webhook.NewMemoryStore(webhook.MemoryStoreOptions{})),
		webhook.WithErrorHook(func(r *http.Request, err error) { log.Printf("rejected delivery from %s: %v", r.RemoteAddr, err) }),
	)
	mux := http.NewServeMux()
	mux.Handle("POST /", receive(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, _ := webhook.EventFromContext(r.Context())
		fmt.Printf("delivery %s: job %s status %s correctedFile %s\n", ev.ID, ev.Job.ID, ev.Job.Status, ev.Job.CorrectedFile)
		w.WriteHeader(http.StatusNoContent)
	})))

	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute}
	if certFile == "" {
		cert, err := selfSignedCert()
		if err != nil {
			return err
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		log.Print("no -cert/-key: serving a self-signed certificate for localhost, for local testing only")
		if certOut != "" {
			pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]})
			if err := os.WriteFile(certOut, pemCert, 0o644); err != nil {
				return err
			}
			log.Printf("wrote the certificate to %s (pfc-mockserver -webhook-ca %s trusts it)", certOut, certOut)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServeTLS(certFile, keyFile) }()
	log.Printf("receiving webhooks on https://%s", addr)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return srv.Shutdown(shutdown)
	}
}

// selfSignedCert makes a one-day ECDSA certificate for localhost.
func selfSignedCert() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
