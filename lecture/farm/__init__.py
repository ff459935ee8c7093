"""farm"""
