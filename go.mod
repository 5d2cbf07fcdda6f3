module github.com/pfcsdk/pfc-go

go 1.25.0

require (
	github.com/ebitengine/purego v0.11.3
	github.com/esimov/pigo v1.4.6
	github.com/google/go-querystring v1.1.0
	github.com/hashicorp/go-retryablehttp v0.7.8
	github.com/jarcoal/httpmock v1.4.2
	github.com/schollz/progressbar/v3 v3.19.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	golang.org/x/image v0.45.0
	golang.org/x/time v0.12.0
)

require (
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/term v0.28.0 // indirect
)
