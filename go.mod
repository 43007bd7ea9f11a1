module arcalis

go 1.26.8

require github.com/apache/thrift v0.17.0 // indirect
