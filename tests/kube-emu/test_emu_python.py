#!/usr/bin/python3
print("0 passed, 0 failed")
