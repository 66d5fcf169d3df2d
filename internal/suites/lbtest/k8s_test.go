package lbtest

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// recordSeconds is what serve may take past --shutdown-grace: the last
// second its running steps get, and 10 s to record the episodes still
// live (cmd/sqlgym's recordBudget); a pod's termination grace must cover
// the grace and these.
const recordSeconds = 11

// probe is a Kubernetes HTTP probe.
type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

// manifest holds the fields of the example's objects the test checks.
type manifest struct {
	Kind string `yaml:"kind"`
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
				Containers                    []struct {
					Args []string `yaml:"args"`
					Env  []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					Ports []struct {
						Name          string `yaml:"name"`
						ContainerPort int    `yaml:"containerPort"`
					} `yaml:"ports"`
					Liveness  *probe `yaml:"livenessProbe"`
					Readiness *probe `yaml:"readinessProbe"`
					Startup   *probe `yaml:"startupProbe"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
		ServiceSelector map[string]string `yaml:"-"` // a Service's spec.selector: a plain mapping, read apart
		Ports           []struct {
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

// manifests reads every object of examples/deploy/k8s, by kind.
func manifests(t *testing.T) map[string]manifest {
	dir := filepath.Join(binserver.ModuleRoot(t), "examples", "deploy", "k8s")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s: %v", dir, err)
	}
	out := map[string]manifest{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m manifest
		if err := yaml.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var raw map[string]any
		if err := yaml.Unmarshal(b, &raw); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if spec, ok := raw["spec"].(map[string]any); ok && m.Kind == "Service" {
			m.Spec.ServiceSelector = labels(spec["selector"])
		}
		out[m.Kind] = m
	}
	return out
}

// labels is a YAML mapping of strings.
func labels(v any) map[string]string {
	out := map[string]string{}
	m, _ := v.(map[string]any)
	for k, v := range m {
		out[k], _ = v.(string)
	}
	return out
}

// TestK8sManifestsAgreeWithTheServer: the Deployment probes /livez and
// /readyz on the port its SQLGYM_ADDR listens on, its termination grace
// covers its --shutdown-grace and the recording after it, the Service
// and PodDisruptionBudget select its pods, and a real server answers the
// probes' paths 200 with the Deployment's arguments.
func TestK8sManifestsAgreeWithTheServer(t *testing.T) {
	all := manifests(t)
	dep, svc, pdb := all["Deployment"], all["Service"], all["PodDisruptionBudget"]
	if len(dep.Spec.Template.Spec.Containers) != 1 || svc.Kind == "" || pdb.Kind == "" {
		t.Fatalf("want a Deployment of one container, a Service and a PodDisruptionBudget, got %v", keys(all))
	}
	c := dep.Spec.Template.Spec.Containers[0]
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	var listen string
	for _, e := range c.Env {
		if e.Name == "SQLGYM_ADDR" {
			listen = e.Value
		}
	}
	if !strings.HasSuffix(listen, ":"+strconv.Itoa(ports["http"])) {
		t.Fatalf("SQLGYM_ADDR %q is not on the container port http (%d)", listen, ports["http"])
	}
	for name, want := range map[string]struct {
		p    *probe
		path string
	}{"liveness": {c.Liveness, "/livez"}, "readiness": {c.Readiness, "/readyz"}, "startup": {c.Startup, "/livez"}} {
		if want.p == nil || want.p.HTTPGet.Path != want.path || ports[want.p.HTTPGet.Port] == 0 {
			t.Fatalf("%s probe: want GET %s on a named container port, got %+v", name, want.path, want.p)
		}
	}
	grace := shutdownGrace(t, c.Args)
	if got := dep.Spec.Template.Spec.TerminationGracePeriodSeconds; time.Duration(got)*time.Second < grace+recordSeconds*time.Second {
		t.Fatalf("terminationGracePeriodSeconds %d does not cover --shutdown-grace %s + %ds", got, grace, recordSeconds)
	}
	pod := dep.Spec.Template.Metadata.Labels
	for name, sel := range map[string]map[string]string{"Deployment": dep.Spec.Selector.MatchLabels,
		"Service": svc.Spec.ServiceSelector, "PodDisruptionBudget": pdb.Spec.Selector.MatchLabels} {
		if len(sel) == 0 || !subset(sel, pod) {
			t.Fatalf("%s selects %v, not the pods' labels %v", name, sel, pod)
		}
	}
	if len(svc.Spec.Ports) != 1 || ports[svc.Spec.Ports[0].TargetPort] == 0 {
		t.Fatalf("Service ports %+v do not target a container port", svc.Spec.Ports)
	}
	args := append([]string{"--data-dir", t.TempDir()}, c.Args[1:]...) // serve's own flags, on binserver's address
	p := binserver.Start(t, binserver.Build(t), args...)
	for _, path := range []string{c.Liveness.HTTPGet.Path, c.Readiness.HTTPGet.Path} {
		checkStatus(t, p.HTTP()+path, http.StatusOK)
	}
	p.Stop(t)
}

// shutdownGrace is the --shutdown-grace of args.
func shutdownGrace(t *testing.T, args []string) time.Duration {
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("container args %v do not run serve", args)
	}
	for i, a := range args {
		if a == "--shutdown-grace" && i+1 < len(args) {
			d, err := time.ParseDuration(args[i+1])
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatalf("container args %v set no --shutdown-grace", args)
	return 0
}

func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func keys(m map[string]manifest) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
