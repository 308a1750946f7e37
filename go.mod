module github.com/openpay-go/openpay

go 1.25

require (
	github.com/hashicorp/go-retryablehttp v0.7.8
	github.com/shopspring/decimal v1.6.0
	github.com/stretchr/testify v1.12.1
	go.etcd.io/bbolt v1.4.3
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/text v0.32.0
	gopkg.in/h2non/gock.v1 v1.1.2
)

require (
	github.com/h2non/parth v0.0.0-20190131123155-b4df798d6542 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	golang.org/x/sys v0.39.0 // indirect
)
