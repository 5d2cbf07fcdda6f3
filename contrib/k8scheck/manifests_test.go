package k8scheck

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// dir holds the manifests.
const dir = "../../docs/kubernetes"

// decoded is every object of the manifests, by kind.
type decoded struct {
	services     []*corev1.Service
	accounts     []*corev1.ServiceAccount
	statefulSets []*appsv1.StatefulSet
	jobs         []*batchv1.Job
}

// decode splits a file's YAML documents and decodes each strictly into
// the API type its apiVersion and kind name.
func decode(t *testing.T, d *decoded, name string, data []byte) error {
	for i, doc := range bytes.Split(data, []byte("\n---\n")) {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return fmt.Errorf("%s, document %d: %w", name, i, err)
		}
		var obj any
		switch tm.APIVersion + " " + tm.Kind {
		case "v1 Service":
			obj = add(&d.services)
		case "v1 ServiceAccount":
			obj = add(&d.accounts)
		case "apps/v1 StatefulSet":
			obj = add(&d.statefulSets)
		case "batch/v1 Job":
			obj = add(&d.jobs)
		default:
			return fmt.Errorf("%s, document %d: unexpected %q %q (add its type to this test)", name, i, tm.APIVersion, tm.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return fmt.Errorf("%s, document %d (%s): %w", name, i, tm.Kind, err)
		}
	}
	return nil
}

// add appends a new object to list and returns it, for decode to fill.
func add[T any](list *[]*T) *T {
	o := new(T)
	*list = append(*list, o)
	return o
}

// TestManifestsStrict decodes every manifest strictly, then checks that
// they agree with each other.
func TestManifestsStrict(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var d decoded
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, decode(t, &d, filepath.Base(f), data))
	}
	require.Len(t, d.services, 1)
	require.Len(t, d.statefulSets, 1)
	require.Len(t, d.jobs, 1)
	require.Len(t, d.accounts, 1)
	svc, sts, job := d.services[0], d.statefulSets[0], d.jobs[0]

	assert.Equal(t, corev1.ClusterIPNone, svc.Spec.ClusterIP, "the Service is headless: a DNS name per replica")
	assert.Equal(t, svc.Name, sts.Spec.ServiceName)
	assert.Equal(t, svc.Spec.Selector, sts.Spec.Template.Labels)
	assert.Equal(t, sts.Spec.Selector.MatchLabels, sts.Spec.Template.Labels)
	require.Len(t, svc.Spec.Ports, 1)
	port := svc.Spec.Ports[0].Port
	assert.EqualValues(t, 8000, port, "the container serves on 8000 (API documentation)")
	require.NotNil(t, sts.Spec.Replicas)

	spec := job.Spec
	require.NotNil(t, spec.CompletionMode)
	assert.Equal(t, batchv1.IndexedCompletion, *spec.CompletionMode)
	require.NotNil(t, spec.Completions)
	require.NotNil(t, spec.Parallelism)
	assert.Equal(t, *spec.Completions, *spec.Parallelism, "every shard runs at once")
	assert.Equal(t, corev1.RestartPolicyNever, spec.Template.Spec.RestartPolicy)
	assert.Equal(t, d.accounts[0].Name, spec.Template.Spec.ServiceAccountName)
	require.Len(t, spec.Template.Spec.Containers, 1)
	c := spec.Template.Spec.Containers[0]
	assert.True(t, strings.HasPrefix(c.Image, "ko://github.com/pfcsdk/pfc-go/"), "ko builds the image: %s", c.Image)
	flag := func(name string) string {
		i := slices.Index(c.Args, name)
		require.True(t, i >= 0 && i+1 < len(c.Args), "args hold %s and its value", name)
		return c.Args[i+1]
	}
	assert.Equal(t, strconv.Itoa(int(*spec.Completions)), flag("-shard"), "one shard per index, i from JOB_COMPLETION_INDEX")
	var want []string
	for i := range *sts.Spec.Replicas {
		want = append(want, fmt.Sprintf("http://%s-%d.%s:%d", sts.Name, i, svc.Name, port))
	}
	assert.Equal(t, strings.Join(want, ","), flag("-url"), "-url names every replica of the StatefulSet")
	conc, err := strconv.Atoi(flag("-concurrency"))
	require.NoError(t, err)
	assert.Positive(t, conc)
	var key bool
	for _, e := range c.Env {
		if e.Name == "PFC_BG_LICENSE_KEY" {
			key = e.Value == "" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil
		}
	}
	assert.True(t, key, "the licence key comes from a Secret, never inline")
}

// TestStrictCatchesTypos: the decoding this test relies on refuses a
// misspelt field, at any depth.
func TestStrictCatchesTypos(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: x}\nspec: {replcas: 3}\n",
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {completionMode: Indexed, template: {spec: {containers: [{name: c, imagee: x}]}}}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: x, lables: {a: b}}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n",
	} {
		var d decoded
		assert.Error(t, decode(t, &d, "typo.yaml", []byte(doc)), doc)
	}
}
