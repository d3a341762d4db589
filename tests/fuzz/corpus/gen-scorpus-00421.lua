-- hearsay-args: --set run.iterations=3
њннА
