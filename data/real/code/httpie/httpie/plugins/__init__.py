"""
WARNING: The plugin API is still work in progress and will
         probably be completely reworked in the future.

"""
from .base import (
    AuthPlugin, FormatterPlugin,
    ConverterPlugin, TransportPlugin
)

__all__ = ('AuthPlugin', 'ConverterPlugin', 'FormatterPlugin', 'TransportPlugin')
